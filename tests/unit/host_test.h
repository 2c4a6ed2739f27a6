/* tests/unit/host_test.h — what the host tests share: the hooks
 * tests/unit/host_arch.c exposes, and one seeded random-number generator
 * (xorshift64*: deterministic per seed, good enough to pick steps). */
#ifndef LULL_HOST_TEST_H
#define LULL_HOST_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

extern bool host_irqs_disabled;         /* the simulated interrupt flag */
extern jmp_buf *host_panic_catch;       /* set: panic() longjmps here */
extern char host_last_panic[256];       /* the last panic message */

static uint64_t rng_state;              /* seed it before use */

static inline uint64_t rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static inline uint32_t rnd32(void) { return (uint32_t)(rnd64() >> 32); }

#endif
