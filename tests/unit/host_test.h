/* tests/unit/host_test.h — what the host tests share: the hooks
 * tests/unit/host_arch.c exposes, expect_panic() built on them, and one
 * seeded random-number generator (xorshift64*: deterministic per seed,
 * good enough to pick steps). */
#ifndef LULL_HOST_TEST_H
#define LULL_HOST_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

extern _Thread_local bool host_irqs_disabled;         /* the simulated interrupt flag */
extern jmp_buf *host_panic_catch;       /* set: panic() longjmps here */
extern char host_last_panic[256];       /* the last panic message */
extern char host_last_kprintf[256];     /* the last line kprintf formatted */
extern char host_kprintf_log[8192];     /* all of it, until emptied */
extern uint64_t host_cycles;            /* what arch_cycles() returns */
extern uint64_t host_halt_cycles;       /* what arch_halt_cycles() returns, once */
#define HOST_MAX_CPUS 8
extern unsigned host_nr_cpus;           /* the fake CPUs online (1 unless a test says) */
extern _Thread_local unsigned host_cpu_id;      /* which one this thread plays */
extern unsigned host_kicks[HOST_MAX_CPUS];      /* arch_kick_cpu calls per CPU */
extern void (*host_kick_hook)(unsigned cpu);    /* and a test's own action on one */

/* Run `call`, which must panic with a message starting with `prefix` (the
 * core's "function: what" form, e.g. "timer_add: t0 is").  The panic
 * leaves interrupts off, as the refused call had made them; the caller (a
 * test, or a timer callback) had them on, so they are turned back on. */
#define expect_panic(call, prefix)                                              \
	do {                                                                    \
		jmp_buf expect_panic_catch;                                     \
		if (setjmp(expect_panic_catch) == 0) {                          \
			host_panic_catch = &expect_panic_catch;                 \
			call;                                                   \
			host_panic_catch = NULL;                                \
			fail_msg("no panic from %s", #call);                    \
		}                                                               \
		host_irqs_disabled = false;                                     \
		if (strncmp(host_last_panic, prefix, strlen(prefix)) != 0)      \
			fail_msg("panic \"%s\", expected \"%s...\"",            \
			         host_last_panic, prefix);                      \
	} while (0)

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
