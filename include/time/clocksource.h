/* include/time/clocksource.h — free-running counters read as time.
 *
 * A clocksource is a counter that ticks at a known, fixed frequency and is
 * never reprogrammed: the TSC, the ACPI PM timer, the HPET main counter, or
 * (worst case) a count of PIT interrupts.  The driver says how to read it,
 * how wide it is and how fast it runs; the core (kernel/time/clocksource.c)
 * derives mult/shift so that    ns = (cycles * mult) >> shift.
 *
 * Rating scale (higher is better; the best usable one is selected):
 *     1-99   unfit for real use; only if nothing else exists
 *   100-199  works, but coarse, slow to read, or lost across skipped ticks
 *   200-299  good: correct, keeps counting while halted, but slow to read
 *   300-399  desired: fast and precise
 *   400-499  perfect: the ideal source (unused in lull)
 * Each driver justifies its number in one line next to its struct.
 */
#ifndef LULL_TIME_CLOCKSOURCE_H
#define LULL_TIME_CLOCKSOURCE_H

#include "../compiler.h"

/* Flags a driver sets. */
#define CLOCK_SOURCE_CONTINUOUS  (1u << 0)  /* keeps counting while the CPU halts
                                               and when no tick interrupt comes,
                                               so it can measure skipped ticks */
#define CLOCK_SOURCE_UNSTABLE    (1u << 1)  /* failed a check: never select it */

#define CLOCKSOURCE_ABOUT_MAX 96     /* the `about` text, its NUL included */

struct clocksource {
	/* --- set by the driver --- */
	const char *name;
	int rating;
	uint64_t (*read)(struct clocksource *cs);   /* raw counter, masked or not */
	/* Optional: one read of the counter as it is, for a driver whose
	 * `read` combines several to work around a chip that returns torn
	 * values (acpi_pm's triple read).  Its `read` calls it through this
	 * field, so a fault can be put beneath the workaround
	 * (inject_clocksource_glitch). */
	uint64_t (*read_raw)(struct clocksource *cs);
	uint64_t mask;          /* counter width: (1 << bits) - 1 */
	uint64_t freq_hz;       /* counting rate, measured or from the spec */
	uint32_t flags;
	const char *about;      /* optional: where freq_hz came from, for the
	                           `clocksource` listing ("calibrated against
	                           hpet ..."), under CLOCKSOURCE_ABOUT_MAX */
	const char *driven_by;  /* a counter that is not CONTINUOUS may count
	                           a clock event device's periodic interrupts
	                           (the "pit" clocksource: channel 0's): that
	                           device's name.  While this counter keeps
	                           time, the tick must run on that device
	                           (tick_choose_device), or time stops. */
	uint32_t rate_spread_ppm; /* how far that measurement's runs disagreed
	                           (struct calibration's spread_ppm), 0 for a
	                           rate of its own: the precision it claims */
	const char *rate_ref;   /* the counter freq_hz was measured against
	                           ("hpet", "pit" for PIT channel 2), or NULL
	                           when the rate is the counter's own (a spec
	                           value, a capabilities register).  The
	                           self-test never checks a counter against
	                           the one its rate came from. */

	/* --- derived by clocksource_register() --- */
	uint32_t mult, shift;   /* ns = (cycles * mult) >> shift */
	uint64_t max_cycles;    /* largest delta that converts without 64-bit
	                           overflow and before the counter wraps */
	uint64_t max_idle_ns;   /* how long the counter may go unread before a
	                           wrap could be missed (half its range, so there
	                           is margin): 24-bit PM timer ~2.3 s */
	struct clocksource *next;   /* registry list */

	/* --- kept by the watchdog (kernel/time/watchdog.c) --- */
	bool wd_valid;          /* wd_last and wd_ref_last hold a bracket */
	uint64_t wd_last;       /* this counter at its last check */
	uint64_t wd_ref_last;   /* the reference at the same instant */
	uint32_t wd_width_ns;   /* that bracket's width */
	int32_t wd_ppm;         /* the last check's skew, in ppm of the interval */
	int64_t wd_skew_ns;     /* ... and in ns (positive: ran fast) */
	uint64_t wd_interval_ns; /* ... over this long */
	uint64_t wd_worst_ns;   /* the largest |skew| any check saw */
};

static inline uint64_t clocksource_cyc2ns(uint64_t cycles, uint32_t mult, uint32_t shift)
{
	return (cycles * mult) >> shift;
}

/* The same conversions for any count or interval, where mult/shift (exact
 * only up to max_cycles) would overflow: whole seconds, then the rest.
 * Slow (64-bit divisions): for the watchdog and fault injection, not the
 * clock.  cycles -> ns exact to the ns for freq under 18 GHz; ns -> cycles
 * exact to a cycle per microsecond for any interval under 500 years. */
static inline uint64_t clocksource_cycles_to_ns(uint64_t cycles, uint64_t freq)
{
	return cycles / freq * NSEC_PER_SEC + cycles % freq * NSEC_PER_SEC / freq;
}

static inline uint64_t clocksource_ns_to_cycles(uint64_t ns, uint64_t freq)
{
	return ns / NSEC_PER_SEC * freq + ns % NSEC_PER_SEC / NSEC_PER_USEC * freq / USEC_PER_SEC;
}

/* Register a driver's counter: derives mult/shift/max_*, adds it to the
 * registry and re-selects the best one (unless the user pinned one with
 * clocksource=NAME and it is usable).  The first counter registered starts
 * timekeeping; a change of choice is logged as
 * "clocksource: switched to NAME (rating R)".  Returns 0, or -EINVAL for a
 * bad field (no name or read, zero frequency, rating outside 1..499, a mask
 * not of the form 2^bits - 1), a name over 31 characters or one already
 * registered. */
int clocksource_register(struct clocksource *cs);

/* The driver measured its counter's rate again (drivers/timer/tsc.c refines the
 * TSC's a second after boot): re-derive mult/shift; if timekeeping reads
 * this counter, it counts up to now at the old rate and on at the new one,
 * so time does not jump.  Clock event devices whose rate_source is this
 * counter follow (clockevents_rate_source_changed).  -EINVAL (rate kept)
 * for 0 or a rate too slow to convert. */
int clocksource_change_rate(struct clocksource *cs, uint64_t freq_hz);

/* The counter timekeeping reads now. */
struct clocksource *clocksource_current(void);

/* Walk the registry (for the shell's listing). */
struct clocksource *clocksource_first(void);
/* The registered counter called `name`, or known by it ("pmtmr" is the 2005
 * patch's name for acpi_pm); NULL if none. */
struct clocksource *clocksource_lookup(const char *name);

/* Switch timekeeping to NAME without a jump in time.  The choice sticks
 * (it becomes the preferred name) until changed again.  Says nothing: the
 * caller reads clocksource_current() back and says what it is.
 * -ENOENT unknown name, -EINVAL flagged unstable. */
int clocksource_select_by_name(const char *name);

/* The boot option clocksource=NAME: a copy is remembered (up to 31
 * characters; longer is ignored with a message) and honoured when that
 * counter registers and is usable, whatever its rating; at once if it is
 * already registered.  NULL or "" forgets it. */
void clocksource_set_preferred(const char *name);

/* Mark a counter unstable (it failed a check); switches away if current,
 * unless no other counter is usable (then it stays, with a message). */
void clocksource_mark_unstable(struct clocksource *cs, const char *why);

#endif
