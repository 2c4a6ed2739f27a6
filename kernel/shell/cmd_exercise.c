/* kernel/shell/cmd_exercise.c — two timer exercisers: `every` keeps a
 * periodic wheel timer running (it shows in `timers`, and its wakeups in
 * `wakeups`), and `keytimer` arms a wheel timer from inside the serial
 * interrupt handler, where jiffies must already be caught up after a
 * stopped tick.  Pintos' alarm tests have their own file, cmd_alarm.c. */
#include "shell/args.h"
#include "console.h"
#include "idle.h"
#include "kprintf.h"
#include "kstring.h"
#include "shell/shell.h"
#include "time/jiffies.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "shell/commands.h"

/* ---------------------------------------------------------- every */

static struct timer every_timer;
static uint32_t every_ms;

static void every_fire(struct timer *t)
{
	/* From the last expiry, not from now: a drift-free period. */
	timer_mod(t, t->expires + ms_to_jiffies(every_ms));
}

/* "every: 100 ms" or "every: off": whether the timer is pending. */
static void every_say(void)
{
	if (timer_pending(&every_timer))
		kprintf("every: %u ms", every_ms);
	else
		kprintf("every: off");
}

int cmd_every(int argc, char **argv)
{
	uint32_t ms;
	if (argc == 1) {
		every_say();
		kprintf("\n");
		return 0;
	}
	bool off = argc == 2 && strcmp(argv[1], "off") == 0;
	if (!off && (argc != 2 || parse_u32(argv[1], 1, EVERY_MAX_MS, &ms) != 0))
		return SHELL_USAGE;
	bool was_on = timer_pending(&every_timer);
	uint32_t was_ms = every_ms;
	if (off) {
		timer_del_sync(&every_timer);
	} else {
		every_ms = ms;
		/* Set up once, at the first use: from then on the timer may
		 * be pending, and re-initialising a pending timer is refused
		 * (it would link it into the wheel twice).  timer_mod moves a
		 * running period. */
		if (!every_timer.function)
			timer_init(&every_timer, every_fire, "every");
		timer_mod(&every_timer, jiffies + ms_to_jiffies(ms));
	}
	/* Read back, and what it was: a period asked for again restarts. */
	every_say();
	if (!was_on)
		kprintf(off ? " (unchanged)\n" : " (was off)\n");
	else if (off || was_ms != every_ms)
		kprintf(" (was %u ms)\n", was_ms);
	else
		kprintf(" (restarted)\n");
	return 0;
}

/* ---------------------------------------------------------- keytimer */

/* Arm a wheel timer from inside the serial interrupt handler.  If the tick
 * was stopped, jiffies must already be caught up when the handler runs, or
 * the timer fires early (jiffies behind) or late (ahead).  */
static struct timer key_timer;
static uint32_t key_ms;
static volatile uint64_t key_armed_ns, key_fired_ns;
static volatile uint32_t key_armed_jiffy;
static volatile bool key_fired;

static void key_timer_fire(struct timer *t)
{
	(void)t;
	key_fired_ns = ktime_get_ns();
	key_fired = true;
}

static bool key_hook(char c)
{
	(void)c;
	key_armed_ns = ktime_get_ns();
	key_armed_jiffy = jiffies;
	/* timer_mod: a second byte before the hook is removed re-arms it. */
	timer_mod(&key_timer, jiffies + ms_to_jiffies(key_ms));
	return true;                    /* the byte is consumed */
}

int cmd_keytimer(int argc, char **argv)
{
	uint32_t ms;
	if (argc != 2 || parse_u32(argv[1], 1, KEYTIMER_MAX_MS, &ms) != 0)
		return SHELL_USAGE;
	key_ms = ms;
	key_fired = false;
	key_armed_ns = 0;
	/* Not pending: every way out of this command leaves it fired or
	 * deleted, and the hook that arms it is not installed yet. */
	timer_init(&key_timer, key_timer_fire, "keytimer");
	kprintf("keytimer: press a key; its interrupt arms a %u ms timer\n", ms);
	console_set_input_hook(key_hook);
	wait_event(key_armed_ns || console_interrupted());
	console_set_input_hook(NULL);
	wait_event(key_fired || console_interrupted());
	if (!key_fired) {
		timer_del_sync(&key_timer);
		return -EINTR;
	}
	uint64_t took = key_fired_ns - key_armed_ns;
	kprintf("keytimer: armed in the IRQ at jiffy %u, fired after %llu us (asked %u ms)\n",
	        key_armed_jiffy, (unsigned long long)(took / NSEC_PER_USEC), ms);
	return 0;
}
