/* kernel/lib/lab.c — the line a lab's stub prints (include/lab.h).
 *
 * Every call of a stub is reported, but a stub may sit on a hot path (the
 * tick, the timer wheel: 250 calls a second and more), so the lines are
 * rate-limited per lab: the first call prints at once, a later one only
 * when LAB_REPORT_MS have passed since the last line, and it says how many
 * calls it stands for.  The host unit tests link this file too (Makefile),
 * where the line goes to stderr and there is no clock unless a test hands
 * one: there the limit is a count of calls.
 *
 * Any CPU may call a stub, from any context, so a lab's record is shared
 * without a lock (a lock would be a floor above this one): its name is
 * claimed once with a compare-and-swap, its calls are counted with atomic
 * adds, and the caller whose compare-and-swap moves `last_ms` on is the
 * one that prints.  All 32-bit: the i386 has no 64-bit atomics without a
 * library. */
#include "lab.h"

#ifdef LULL_HOST
#include <stdio.h>
#define lab_print(...) fprintf(stderr, __VA_ARGS__)
#else
#include "kprintf.h"
#define lab_print(...) kprintf(__VA_ARGS__)
#endif

#define LABS_MAX          16            /* more than there are labs */

/* Each lab's record, written by any CPU, each field with an atomic. */
static struct lab_record {
	const char *name;       /* NULL: free; claimed once (compare-and-swap), never released */
	uint32_t calls;         /* calls since the last line: added to by every caller,
	                           taken (exchanged for 0) by the one that prints */
	uint32_t last_ms;       /* when the last line was printed (with a clock):
	                           moved on by the one that prints (compare-and-swap) */
} labs[LABS_MAX];

/* Written once at boot (kernel/main.c), read by every CPU: atomic. */
static uint32_t (*lab_clock)(void);

void lab_set_clock(uint32_t (*now_ms)(void))
{
	__atomic_store_n(&lab_clock, now_ms, __ATOMIC_RELEASE);
}

/* NAME's record, claimed for it if it has none (*first is then set); NULL
 * if the table is full. */
static struct lab_record *lab_record(const char *lab, bool *first)
{
	for (unsigned i = 0; i < LABS_MAX; i++) {
		struct lab_record *r = &labs[i];
		const char *name = __atomic_load_n(&r->name, __ATOMIC_ACQUIRE);
		if (!name && __atomic_compare_exchange_n(&r->name, &name, lab, false,
		                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			/* A CPU that finds the name before this store may
			 * print one line early: harmless. */
			uint32_t (*clock)(void) = __atomic_load_n(&lab_clock, __ATOMIC_ACQUIRE);
			__atomic_store_n(&r->last_ms, clock ? clock() : 0, __ATOMIC_RELAXED);
			*first = true;
			return r;
		}
		/* Taken, by now perhaps by another CPU: `name` is its lab. */
		if (name == lab || __builtin_strcmp(name, lab) == 0)
			return r;
	}
	return NULL;
}

/* Is this call, the `calls`-th since the last line, the one to print one?
 * With a clock: the first whose compare-and-swap moves last_ms on, a
 * second or more after it.  Without: the one that brings the count to
 * LAB_REPORT_CALLS. */
static bool lab_due(struct lab_record *r, uint32_t calls)
{
	uint32_t (*clock)(void) = __atomic_load_n(&lab_clock, __ATOMIC_ACQUIRE);
	if (!clock)
		return calls == LAB_REPORT_CALLS;
	/* last before now, so that now is not older than the line another
	 * CPU printed meanwhile.  The difference is wrap-safe, and signed: a
	 * clock a little behind (another CPU's TSC, not quite in step) is not
	 * a whole wrap ahead. */
	uint32_t last = __atomic_load_n(&r->last_ms, __ATOMIC_ACQUIRE);
	uint32_t now = clock();
	return (int32_t)(now - last) >= (int32_t)LAB_REPORT_MS &&
	       __atomic_compare_exchange_n(&r->last_ms, &last, now, false, __ATOMIC_RELAXED,
	                                   __ATOMIC_RELAXED);
}

void lab_not_implemented(const char *lab)
{
	bool first = false;
	struct lab_record *r = lab_record(lab, &first);
	if (!r || first) {
		lab_print("lab %s: not implemented\n", lab);
		return;
	}
	uint32_t calls = __atomic_add_fetch(&r->calls, 1, __ATOMIC_RELAXED);
	if (!lab_due(r, calls))
		return;
	uint32_t since = __atomic_exchange_n(&r->calls, 0, __ATOMIC_RELAXED);
	lab_print("lab %s: not implemented (%u more call%s)\n", lab, since, since == 1 ? "" : "s");
}
