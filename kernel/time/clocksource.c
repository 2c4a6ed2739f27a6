/* kernel/time/clocksource.c — the registry of free-running counters, and the
 * one place where cycles become nanoseconds.
 *
 * A driver registers a counter with its frequency and width.  This file
 * derives mult/shift (clocks_calc_mult_shift, in mult_shift.c) and the limits that keep
 * the conversion overflow-free, keeps every counter in a list, and hands the
 * best usable one to timekeeping.  "Best" is the highest rating not flagged
 * UNSTABLE, unless the user named one (clocksource=NAME on the command line,
 * or the shell) and that one is usable.
 *
 * Coupling with timekeeping is one-way and lives in one function,
 * clocksource_reselect(): when the choice changes it calls timekeeping_init()
 * for the very first counter and timekeeping_change_clocksource() after
 * that.  Nothing else calls those two.  A counter's rate measured again
 * (clocksource_change_rate) is passed on to the clock event devices whose
 * rate derives from it, through clockevents_rate_source_changed().
 */
#include "cmdline.h"
#include "time/clocksource.h"
#include "time/mult_shift.h"
#include "time/clockevent.h"
#include "time/timekeeping.h"
#include "time/arch.h"
#include "errno.h"
#include "kstring.h"

/* Longest interval a clocksource conversion must handle.  Ten minutes, as in
 * Linux (kernel/time/clocksource.c): far longer than the tick ever leaves
 * the counter unread, short enough that mult keeps a relative error below
 * 1e-6 up to 10 GHz (see the bound above clocks_calc_mult_shift, mult_shift.c). */
#define CLOCKSOURCE_MAX_CONVERT_S   600

/* Ratings outside the scale in clocksource.h are a driver bug. */
#define CLOCKSOURCE_RATING_MIN      1
#define CLOCKSOURCE_RATING_MAX      499

/* Room for a name, terminator included: the preferred name is a copy. */
#define CLOCKSOURCE_NAME_MAX        32

static struct clocksource *clocksource_list;     /* in registration order */
static struct clocksource *clocksource_cur;      /* what timekeeping reads */
static char clocksource_preferred_name[CLOCKSOURCE_NAME_MAX];   /* "" = none */

static bool clocksource_usable(const struct clocksource *cs)
{
	return !(cs->flags & CLOCK_SOURCE_UNSTABLE);
}

/* Other names a counter is known by.  The 2005 dyntick patch, like i386
 * Linux of its day, called the ACPI PM timer "pmtmr" ("Using pmtmr for
 * high-res timesource"); lull calls it acpi_pm, as Linux's clocksources
 * have since 2.6.18.  Both are accepted wherever a name is. */
static const struct { const char *alias, *name; } clocksource_aliases[] = {
	{ "pmtmr", "acpi_pm" },
};

static const char *clocksource_canonical(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(clocksource_aliases); i++)
		if (strcmp(name, clocksource_aliases[i].alias) == 0)
			return clocksource_aliases[i].name;
	return name;
}

static struct clocksource *clocksource_find(const char *name)
{
	name = clocksource_canonical(name);
	for (struct clocksource *cs = clocksource_list; cs; cs = cs->next)
		if (strcmp(cs->name, name) == 0)
			return cs;
	return NULL;
}

struct clocksource *clocksource_lookup(const char *name)
{
	return name ? clocksource_find(name) : NULL;
}

/* The counter timekeeping should read: the preferred one if it is registered
 * and usable, else the best-rated usable one (the earlier registered wins a
 * tie).  NULL if none is usable. */
static struct clocksource *clocksource_pick(void)
{
	if (clocksource_preferred_name[0]) {
		struct clocksource *cs = clocksource_find(clocksource_preferred_name);
		if (cs && clocksource_usable(cs))
			return cs;
	}
	struct clocksource *best = NULL;
	for (struct clocksource *cs = clocksource_list; cs; cs = cs->next)
		if (clocksource_usable(cs) && (!best || cs->rating > best->rating))
			best = cs;
	return best;
}

/* Hand timekeeping the picked counter if the pick changed, and if `say`,
 * say so in one line (the shell's `clocksource NAME` says it its own way).
 * When nothing is usable we keep the current counter: a doubtful clock
 * beats no clock. */
static void clocksource_reselect(bool say)
{
	unsigned long flags = arch_irq_save();
	struct clocksource *old = clocksource_cur;
	struct clocksource *pick = clocksource_pick();
	if (pick && pick != old) {
		clocksource_cur = pick;
		if (old == NULL)
			timekeeping_init(pick);
		else
			timekeeping_change_clocksource(pick);
	}
	arch_irq_restore(flags);

	if (say && pick && pick != old)
		kprintf("clocksource: switched to %s (rating %d)\n", pick->name, pick->rating);
}

/* Names must tell counters apart, and fit the preferred-name copy. */
/* Twin of clockevent_name_ok (kernel/time/clockevents.c): see there. */
static bool clocksource_name_ok(const struct clocksource *cs)
{
	if (strlen(cs->name) >= CLOCKSOURCE_NAME_MAX)
		return false;
	for (struct clocksource *p = clocksource_list; p; p = p->next)
		if (p == cs || strcmp(p->name, cs->name) == 0)
			return false;
	return true;
}

/* mult/shift, max_cycles and max_idle_ns from mask and freq_hz.  -EINVAL
 * if the rate is too slow to convert. */
static int clocksource_derive(struct clocksource *cs)
{
	/* Convert over the counter's whole range, but at most ten minutes: a
	 * 64-bit TSC would otherwise ask for centuries and get a tiny mult. */
	uint64_t range_s = cs->mask / cs->freq_hz + 1;
	uint64_t maxsec = MIN(range_s, (uint64_t)CLOCKSOURCE_MAX_CONVERT_S);
	clocks_calc_mult_shift(&cs->mult, &cs->shift, cs->freq_hz, NSEC_PER_SEC, maxsec);
	if (cs->mult == 0)
		return -EINVAL;

	/* max_cycles: the counter's width, or the largest delta whose product
	 * with mult fits in 64 bits less 1/8 — that spare room holds
	 * timekeeping's sub-ns remainder and tolerates an update that comes a
	 * little late on a 64-bit counter.  max_idle_ns is half of it, so a
	 * wrap is caught with as much time again to spare. */
	uint64_t no_overflow = UINT64_MAX / cs->mult;
	no_overflow -= no_overflow >> 3;
	cs->max_cycles = MIN(cs->mask, no_overflow);
	cs->max_idle_ns = clocksource_cyc2ns(cs->max_cycles, cs->mult, cs->shift) / 2;
	return 0;
}

/* Drivers register from init code, one at a time; interrupts are off only
 * while the list changes. */
int clocksource_register(struct clocksource *cs)
{
	if (!cs || !cs->name || !cs->read || cs->freq_hz == 0)
		return -EINVAL;
	if (!clocksource_name_ok(cs))
		return -EINVAL;
	if (cs->rating < CLOCKSOURCE_RATING_MIN || cs->rating > CLOCKSOURCE_RATING_MAX)
		return -EINVAL;
	/* A width is 2^bits - 1: all ones from bit 0 up (for 64 bits, mask + 1
	 * wraps to 0, which passes too). */
	if (cs->mask == 0 || (cs->mask & (cs->mask + 1)) != 0)
		return -EINVAL;

	if (clocksource_derive(cs))
		return -EINVAL;

	unsigned long flags = arch_irq_save();
	struct clocksource **tail = &clocksource_list;
	while (*tail)
		tail = &(*tail)->next;
	cs->next = NULL;
	*tail = cs;
	arch_irq_restore(flags);

	clocksource_reselect(true);
	return 0;
}

int clocksource_change_rate(struct clocksource *cs, uint64_t freq_hz)
{
	if (!cs || freq_hz == 0)
		return -EINVAL;
	unsigned long flags = arch_irq_save();
	struct clocksource old = *cs;
	cs->freq_hz = freq_hz;
	if (clocksource_derive(cs)) {
		*cs = old;                  /* too slow: keep the old rate */
		arch_irq_restore(flags);
		return -EINVAL;
	}
	/* Timekeeping folds what it counted at its copy of the old rate, then
	 * continues at the new one from here: no jump. */
	if (cs == clocksource_cur && (cs->mult != old.mult || cs->shift != old.shift))
		timekeeping_change_clocksource(cs);
	arch_irq_restore(flags);
	/* Clock event devices whose rate was derived from this counter move
	 * with it (the TSC-deadline and LAPIC timers after the TSC's
	 * refinement); the drivers need not know about each other. */
	clockevents_rate_source_changed(cs, old.freq_hz, freq_hz);
	return 0;
}

struct clocksource *clocksource_current(void)
{
	return clocksource_cur;
}

struct clocksource *clocksource_first(void)
{
	return clocksource_list;
}

/* Remember `name` (NULL: none) as preferred and pick again, saying so if
 * `say` and the pick changed. */
static void set_preferred(const char *name, bool say)
{
	name = name ? clocksource_canonical(name) : "";
	size_t len = strlen(name);
	if (len >= sizeof(clocksource_preferred_name)) {
		kprintf("clocksource: name '%s' too long, ignored\n", name);
		return;
	}
	/* A copy: the boot command line's buffer may not outlive us. */
	memcpy(clocksource_preferred_name, name, len + 1);
	clocksource_reselect(say);
}

/* The user's choice sticks: it becomes the preferred name, so a better-rated
 * counter registering later does not take over again. */
int clocksource_select_by_name(const char *name)
{
	struct clocksource *cs = name ? clocksource_find(name) : NULL;
	if (!cs)
		return -ENOENT;
	if (!clocksource_usable(cs))
		return -EINVAL;
	set_preferred(cs->name, false);         /* the caller says what it is now */
	return 0;
}

void clocksource_set_preferred(const char *name)
{
	set_preferred(name, true);
}

void clocksource_mark_unstable(struct clocksource *cs, const char *why)
{
	cs->flags |= CLOCK_SOURCE_UNSTABLE;
	kprintf("clocksource: %s marked unstable: %s\n", cs->name, why);
	if (cs == clocksource_cur) {
		clocksource_reselect(true);
		if (cs == clocksource_cur)
			kprintf("clocksource: no usable alternative, staying on %s\n", cs->name);
	}
}

#ifdef LULL_HOST
/* Host unit tests only (declared in tests/unit/time_test.h): forget every
 * counter and the preferred name. */
void clocksource_reset_for_test(void)
{
	clocksource_list = NULL;
	clocksource_cur = NULL;
	clocksource_preferred_name[0] = '\0';
}
#endif

/* The boot option clocksource=NAME, declared next to what it configures. */
BOOT_VALUE("clocksource", clocksource_set_preferred, "timekeeping counter by name: tsc, hpet, acpi_pm (or pmtmr), pit");
