/* kernel/shell/cmd_smp.c — the CPUs, and timers across them: `cpus` lists
 * the processors kernel/smp_boot.c started (each one's state, tick and
 * wakeups), and `timeron` arms a timer for another CPU and says where and
 * when it fired (docs/smp.md).  `stress`, which arms and cancels timers
 * from every CPU at once, has its own file, cmd_stress.c.
 */
#include "arch/irq.h"
#include "arch/smp.h"
#include "console.h"
#include "errno.h"
#include "idle.h"
#include "kprintf.h"
#include "shell/args.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "task.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/percpu.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/wakeups.h"

/* ---------------------------------------------------------- cpus */

/* One line per CPU.  wakeups: how often an interrupt woke it since the
 * last `wakeups reset` (or boot), and that per second (its `wakeups`).  The
 * boot CPU runs this command, so it is busy and its tick is running; an
 * AP's tick follows the boot CPU's mode and rate on its own local APIC
 * timer, stopped while it sleeps by the mode's rule (docs/smp.md). */
int cmd_cpus(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	timekeeping_update();
	uint64_t now = ktime_get_ns();
	static struct wakeup_stats w;
	struct tick_cpu *tc = this_tick();
	kprintf("cpu  apic  state  tick                          wakeups since reset\n");
	for (unsigned i = 0; i < cpus_online; i++) {
		const struct cpu *c = &cpus[i];
		char tick[48], rate[FMT_FIXED_SIZE];
		const struct tick_cpu *t = i == 0 ? tc : time_tick_of(i);
		if (!t->dev)
			ksnprintf(tick, sizeof(tick), "none");
		else            /* the boot CPU runs this command: its tick runs */
			ksnprintf(tick, sizeof(tick), "%s, %s on %s",
			          i == 0 || !t->stopped ? "running" : "stopped",
			          tick_mode_name(t->mode), t->dev->name);
		wakeups_snapshot(i, now, &w);
		uint64_t n = w.wakeups, span_ms = (now - w.since_ns) / NSEC_PER_MSEC;
		uint64_t per_s_x10 = span_ms ? n * 10000 / span_ms : 0;
		/* Busy: a call from another CPU, or a task (the shell on CPU 0). */
		const struct task *run = task_running_on(i);
		bool busy = c->state == CPU_BUSY || (c->state == CPU_IDLE && run && !run->idle);
		kprintf("%3u  %4u  %-5s  %-28s  %llu (%s/s)\n", i, c->apic_id,
		        busy ? "busy" : c->state == CPU_IDLE ? "idle" : "off",
		        tick, (unsigned long long)n, fmt_fixed(rate, sizeof(rate), per_s_x10, 1));
	}
	return 0;
}

/* ---------------------------------------------------------- timeron */

/* A probe's callback runs on the CPU it was armed for, which is not the
 * one waiting in the shell: it kicks that one (`waiter`), or the shell
 * would sleep on to its own next event (68 s on an idle LAPIC timer). */
static unsigned probe_waiter;

static void probe_done(volatile bool *fired)
{
	__atomic_store_n(fired, true, __ATOMIC_RELEASE);
	smp_kick(probe_waiter);         /* nothing if it is this CPU */
}

struct probe_hr {
	struct hrtimer t;
	volatile bool fired;
	volatile unsigned cpu;
	volatile uint64_t at_ns;
};

struct probe_wheel {
	struct timer t;
	volatile bool fired;
	volatile unsigned cpu;
	volatile uint32_t at_jiffy;
	volatile uint64_t at_ns;
};

static enum hrtimer_restart probe_hr_fn(struct hrtimer *t)
{
	struct probe_hr *p = container_of(t, struct probe_hr, t);
	p->at_ns = ktime_get_ns();
	p->cpu = this_cpu()->index;
	probe_done(&p->fired);
	return HRTIMER_NORESTART;
}

static void probe_wheel_fn(struct timer *t)
{
	struct probe_wheel *p = container_of(t, struct probe_wheel, t);
	p->at_ns = ktime_get_ns();
	p->at_jiffy = jiffies;
	p->cpu = this_cpu()->index;
	probe_done(&p->fired);
}

/* timeron CPU MS: an hrtimer and a wheel timer armed from this CPU for CPU
 * `cpu`, MS ms ahead.  Where each ran and how late. */
int cmd_timeron(int argc, char **argv)
{
	uint32_t cpu, ms;
	if (argc != 3 || parse_u32(argv[1], 0, NR_CPUS - 1, &cpu) != 0 ||
	    parse_u32(argv[2], 1, TIMERON_MAX_MS, &ms) != 0)
		return SHELL_USAGE;
	if (cpu >= cpus_online) {
		kprintf("error: no CPU %u (%u online; see cpus)\n", cpu, cpus_online);
		return -EINVAL;
	}
	static struct probe_hr hr;
	static struct probe_wheel wh;
	hrtimer_init(&hr.t, probe_hr_fn, "timeron");
	timer_init(&wh.t, probe_wheel_fn, "timeron");
	hr.fired = wh.fired = false;
	probe_waiter = this_cpu()->index;
	uint64_t start = ktime_get_ns(), due = start + (uint64_t)ms * NSEC_PER_MSEC;
	uint32_t expires = jiffies + ms_to_jiffies(ms);
	if (hrtimer_start_on(&hr.t, due, cpu) < 0) {
		kprintf("error: CPU %u has no free hrtimer slot\n", cpu);
		return -ENOSPC;
	}
	timer_mod_on(&wh.t, expires, cpu);
	wait_event((__atomic_load_n(&hr.fired, __ATOMIC_ACQUIRE) &&
	            __atomic_load_n(&wh.fired, __ATOMIC_ACQUIRE)) || console_interrupted());
	if (!hr.fired || !wh.fired) {
		hrtimer_cancel(&hr.t);
		timer_del_sync(&wh.t);
		return -EINTR;
	}
	char late[FMT_FIXED_SIZE];
	if (hr.at_ns < due || time_before(wh.at_jiffy, expires)) {
		kprintf("error: a timer ran early (hrtimer %llu ns before its deadline; "
		        "wheel timer at jiffy %u, due at %u)\n",
		        (unsigned long long)(hr.at_ns < due ? due - hr.at_ns : 0), wh.at_jiffy, expires);
		return -EIO;
	}
	kprintf("hrtimer: ran on CPU %u, %s us after its deadline\n", hr.cpu,
	        fmt_fixed(late, sizeof(late), (hr.at_ns - due) / 10, 2));
	kprintf("wheel timer: ran on CPU %u at jiffy %u (due at %u), %s ms after it was armed\n",
	        wh.cpu, wh.at_jiffy, expires,
	        fmt_fixed(late, sizeof(late), (wh.at_ns - start) / 10000, 2));
	return 0;
}
