/* kernel/time/mult_shift.c — the one place where a count at one rate
 * becomes a count at another: cycles to nanoseconds for clocksources
 * (clocksource.c), nanoseconds to device ticks for clock event devices
 * (clockevents.c).  Both use it; it uses neither.
 */
#include "time/mult_shift.h"
#include "time/arch.h"

/* The shift never exceeds 32.  Timekeeping carries a sub-nanosecond
 * remainder smaller than 2^shift next to cycles * mult, and max_cycles
 * leaves 1/8 of the 64-bit range spare for it (clocksource_register in clocksource.c). */
#define CLOCKS_SHIFT_MAX            32

/*
 * Converting a count of `from` Hz into a count of `to` Hz is a multiplication
 * by the ratio to/from, which is rarely an integer (a 3.579545 MHz PM timer
 * ticks every 279.37 ns), and a 486 divides slowly.  So we approximate the
 * ratio by a fraction whose denominator is a power of two:
 *
 *     out = (in * mult) >> shift,      mult = round(to * 2^shift / from)
 *
 * A larger shift gives a larger mult and a finer approximation, but the
 * product in * mult must fit in 64 bits for every input we will convert, up
 * to maxsec seconds of it: in_max = maxsec * from.  So we take the largest
 * shift (at most CLOCKS_SHIFT_MAX) for which both
 *     mult <= 2^32 - 1          (it is a uint32_t), and
 *     in_max * mult <= 2^64 - 1.
 * Smaller shifts give smaller mults, so the first shift that passes, counting
 * down, is the largest.
 *
 * Error bound.  Rounding makes mult differ from to * 2^shift / from by at
 * most 1/2, so for in <= in_max the result is off by at most
 * in / 2^(shift+1) from the exact value, plus at most 1 for the truncating
 * shift: a relative error of at most 1/(2 * mult) (plus 1/out).  And the mult
 * chosen is large: either shift is 32, or shift + 1 failed one of the two
 * limits, which needs mult above about 2^31 or above about 2^63 / in_max.
 * Hence
 *     relative error <= max(2^-32, in_max / 2^64, from / (to * 2^33)) + 1/out
 * For 600 s at 10 GHz (in_max = 6e12) the first term is 3.3e-7.  The unit
 * tests (tests/unit/test_clocksource.c) check the bound, and 1e-6 over
 * long intervals, from 1 MHz to 10 GHz both ways.
 *
 * If to/from is below 2^-33, even shift 32 rounds mult to 0; callers check
 * for that and refuse the device.
 */
void clocks_calc_mult_shift(uint32_t *mult, uint32_t *shift,
                            uint64_t from, uint64_t to, uint64_t maxsec)
{
	if (from == 0 || to == 0)
		panic("clocks_calc_mult_shift: zero frequency");
	if (maxsec == 0)
		maxsec = 1;
	uint64_t in_max = maxsec > UINT64_MAX / from ? UINT64_MAX : maxsec * from;

	for (int s = CLOCKS_SHIFT_MAX; s >= 0; s--) {
		/* to * 2^s plus the rounding term must itself fit in 64 bits. */
		if (to > (UINT64_MAX - from / 2) >> s)
			continue;
		uint64_t m = ((to << s) + from / 2) / from;
		if (m > UINT32_MAX)
			continue;
		if (m != 0 && in_max > UINT64_MAX / m)
			continue;
		*mult = (uint32_t)m;
		*shift = (uint32_t)s;
		return;
	}
	/* Only absurd input gets here: a ratio above 2^32, or maxsec seconds of
	 * output beyond 2^64 (some 30 PHz for ten minutes). */
	panic("clocks_calc_mult_shift: cannot convert");
}
