/* kernel/time/tick_boot.c — how the tick starts: its boot options, and
 * tick_init() with the 2005 dyntick patch's boot messages.
 *
 * The options only record what was asked (they run before any timer driver
 * has registered): hz= the rate, tick= the mode, clockevent= the device,
 * and the patch's own dyntick=, which means a mode and a device at once.
 * tick_init() then does what the patch's boot did, in its order and its
 * words: name the clocksource, say whether it can measure skipped ticks,
 * register the dynamic tick, pick the device (falling back as the patch
 * fell back), and say the skip limit and whether the dynamic tick is on.
 * lull's own last line says what runs and why.  docs/dyntick.md lists
 * every message and where lull differs from the patch.
 */
#include "cmdline.h"
#include "errno.h"
#include "kstring.h"
#include "time/percpu.h"
#include "time/arch.h"
#include "time/clocksource.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "tick_internal.h"

/* The mode asked for at boot; lull's default is tickless (docs/dyntick.md
 * says why it is not the patch's default, periodic). */
static enum tick_mode boot_mode = TICK_MODE_TICKLESS;
static bool boot_mode_given;

static void set_boot_mode(enum tick_mode mode)
{
	boot_mode = mode;
	boot_mode_given = true;
}

void tick_init(void)
{
	enum tick_mode mode = boot_mode;
	const char *want = clockevents_preferred();
	const char *why;

	/* The 2005 patch's boot messages, in its words and in its order: the
	 * clocksource (i386 time_init's line), whether it can measure skipped
	 * ticks, then the dynamic tick's registration. */
	struct clocksource *cs = clocksource_current();
	bool suitable = tick_skipping_suitable();
	kprintf("Using %s for high-res timesource\n", cs ? cs->name : "(none)");
	if (suitable)
		kprintf("dyn-tick: Found suitable timer: %s\n", cs->name);
	else
		kprintf("dyn-tick: Cannot use timer %s\n", cs ? cs->name : "(none)");
	kprintf("dyn-tick: Registering dynamic tick timer v%s\n", TICK_DYNTICK_VERSION);

	if (!tick_mode_allowed(mode, false)) {
		kprintf("tick: %s needs a continuous clocksource, %s is not; using periodic\n",
		        tick_mode_name(mode), cs ? cs->name : "(none)");
		mode = TICK_MODE_PERIODIC;
	}
	if (want && !tick_device_for(mode, want))
		kprintf("tick: clockevent=%s is not there or cannot run %s; choosing another\n",
		        want, tick_mode_name(mode));
	/* forceapic without a usable local APIC: the patch said so and stayed
	 * on the PIT. */
	if (tick_patch_device && strcmp(tick_patch_device, "lapic") == 0 &&
	    mode != TICK_MODE_TICKLESS && !tick_device_for(mode, tick_patch_device)) {
		kprintf("dyn-tick: Cannot use local APIC\n");
		tick_patch_device = "pit";
	}
	struct clock_event_device *dev = tick_choose_device(mode, &why);
	if (!dev && mode != TICK_MODE_PERIODIC) {
		kprintf(mode == TICK_MODE_DYNTICK ? "dyn-tick: Init failed\n"
		                                  : "tick: no device can run tickless; using periodic\n");
		mode = TICK_MODE_PERIODIC;
		dev = tick_choose_device(mode, &why);
	}
	if (!dev)
		panic("tick_init: no clock event device at all");

	tick_start(dev, mode);

	/* The patch's last words: its skip limit and whether it is on.  Without
	 * a suitable clocksource it stopped at "No suitable timer found".
	 * Tickless is not the patch's mode: lull's own line below says it. */
	if (suitable) {
		kprintf("dyn-tick: Maximum ticks to skip limited to %llu\n",
		        (unsigned long long)tick_max_skip());
		if (mode == TICK_MODE_DYNTICK)
			kprintf("dyn-tick: Timer using dynamic tick\n");
		else if (mode == TICK_MODE_PERIODIC)
			kprintf("dyn-tick: Timer not enabled during boot\n");
	} else {
		kprintf("dyn-tick: No suitable timer found\n");
	}
	kprintf("tick: %s on %s (rating %d; %s) at HZ=%u%s\n", tick_mode_name(mode), dev->name,
	        dev->rating, why, this_tick()->hz, boot_mode_given ? "" : " (default)");
}

#ifdef LULL_HOST
/* Host unit tests only (declared in tests/unit/time_test.h): forget the
 * device, the mode and the boot options. */
void tick_reset_for_test(void)
{
	memset(this_tick(), 0, sizeof(*this_tick()));
	boot_mode = TICK_MODE_TICKLESS;
	boot_mode_given = false;
	tick_patch_device = NULL;
}
#endif

/* ----------------------------------------------- boot options */

static int hz_option(const char *value)
{
	unsigned hz = 0;
	if (!value)
		return -EINVAL;
	for (const char *p = value; *p; p++) {
		/* Digits only; stop once hz is past every valid rate, long
		 * before hz * 10 could overflow. */
		if (*p < '0' || *p > '9' || hz > 100000)
			return -EINVAL;
		hz = hz * 10 + (unsigned)(*p - '0');
	}
	if (!hz_is_valid(hz))
		return -EINVAL;
	tick_hz = hz;
	jiffies_64 = INITIAL_JIFFIES(hz);
	return 0;
}
BOOT_OPTION("hz", hz_option, "tick rate: 100, 250 or 1000");

static int tick_option(const char *value)
{
	enum tick_mode mode;
	if (!value || tick_parse_mode(value, &mode) != 0)
		return -EINVAL;
	set_boot_mode(mode);
	return 0;
}
BOOT_OPTION("tick", tick_option, "tick mode: periodic, dyntick or tickless");

/* The 2005 patch's own option, parsed as the patch parsed it: a value that
 * starts with "enable" turns the dynamic tick on at boot; "forceapic"
 * anywhere in it puts the patch's modes on the local APIC instead of the
 * PIT.  Anything else leaves the dynamic tick off: periodic, as the patch
 * booted ("disable" is the word its help text used).  The patch took a
 * value with none of these words silently; lull warns and ignores it. */
static int dyntick_option(const char *value)
{
	if (!value)
		return -EINVAL;
	bool enable = strncmp(value, "enable", strlen("enable")) == 0;
	bool forceapic = strstr(value, "forceapic") != NULL;
	if (!enable && !forceapic && strncmp(value, "disable", strlen("disable")) != 0)
		return -EINVAL;
	set_boot_mode(enable ? TICK_MODE_DYNTICK : TICK_MODE_PERIODIC);
	tick_patch_device = forceapic ? "lapic" : "pit";
	return 0;
}
BOOT_OPTION("dyntick", dyntick_option, "the 2005 patch's option: enable[,forceapic] or disable[,forceapic]");

BOOT_VALUE("clockevent", clockevents_set_preferred, "tick device by name: pit, lapic, hpet, tsc-deadline");
