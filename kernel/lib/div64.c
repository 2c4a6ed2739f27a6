/* kernel/lib/div64.c — 64-bit division for a 32-bit CPU.
 *
 * i386 has no instruction that divides a 64-bit number by a 64-bit number,
 * so GCC turns `a / b` on uint64_t into a call to __udivdi3 (and % into
 * __umoddi3), normally found in libgcc.  The cross compiler's libgcc is built
 * for i686 and may use instructions a 486 lacks (cmov), so lull carries its
 * own.  The time code divides 64-bit values rarely (calibration, printing),
 * never on the hot path, so clarity beats speed here.
 */
#include "compiler.h"

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

/* 64 / 32 -> 64 using the CPU's 64/32 divl twice (schoolbook long division
 * in base 2^32).  The second divl cannot overflow because its high word, the
 * first remainder, is smaller than the divisor. */
static uint64_t div_u64_u32(uint64_t n, uint32_t d, uint32_t *rem)
{
	uint32_t hi = (uint32_t)(n >> 32), lo = (uint32_t)n;
	uint32_t q_hi = hi / d, r = hi % d, q_lo;
	__asm__("divl %4" : "=a"(q_lo), "=d"(r) : "a"(lo), "d"(r), "rm"(d));
	*rem = r;
	return ((uint64_t)q_hi << 32) | q_lo;
}

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem)
{
	if (d == 0) {
		/* Same as the hardware would do: a divide error (#DE). */
		__asm__ __volatile__("divl %0" :: "r"(0u), "a"(0u), "d"(0u));
	}
	if ((d >> 32) == 0) {
		uint32_t r;
		uint64_t q = div_u64_u32(n, (uint32_t)d, &r);
		if (rem)
			*rem = r;
		return q;
	}
	/* Divisor wider than 32 bits: the quotient fits in 32 bits, found one
	 * bit at a time by shift-and-subtract. */
	uint64_t q = 0, r = 0;
	for (int i = 63; i >= 0; i--) {
		r = (r << 1) | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= 1ULL << i;
		}
	}
	if (rem)
		*rem = r;
	return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d) { return __udivmoddi4(n, d, NULL); }

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
	uint64_t r;
	__udivmoddi4(n, d, &r);
	return r;
}

int64_t __divdi3(int64_t n, int64_t d)
{
	bool neg = (n < 0) != (d < 0);
	uint64_t q = __udivdi3(n < 0 ? -(uint64_t)n : (uint64_t)n,
	                       d < 0 ? -(uint64_t)d : (uint64_t)d);
	/* Negated as unsigned: INT64_MIN / 1 has q = 2^63, which -(int64_t)q
	 * would overflow; the conversion back wraps (GCC's defined behaviour). */
	return (int64_t)(neg ? -q : q);
}

int64_t __moddi3(int64_t n, int64_t d)
{
	uint64_t r = __umoddi3(n < 0 ? -(uint64_t)n : (uint64_t)n,
	                       d < 0 ? -(uint64_t)d : (uint64_t)d);
	return (int64_t)(n < 0 ? -r : r);
}
