/* include/spinlock.h — mutual exclusion between CPUs.
 *
 * On one CPU, turning interrupts off is enough to own shared data (the
 * time core did only that).  With several CPUs another one may be inside
 * the same structure at the same time, so each shared structure gets a
 * lock as well: a word that one CPU at a time changes from 0 to 1 with an
 * atomic exchange (the i386's XCHG, locked by the hardware; SDM Vol. 3A,
 * 8.1.2.1), spinning while it reads 1, and sets back to 0 to leave.
 *
 * Always take a lock with interrupts off (spin_lock_irqsave), as Linux's
 * spin_lock_irqsave does: an interrupt handler on the same CPU that wanted
 * the same lock would spin forever on a lock its own CPU holds.  The flags
 * token restores exactly the interrupt state from before.
 *
 * Portable C (GCC's __atomic builtins), so kernel/time uses it unchanged
 * and the host unit tests run it on host threads (tests/unit/test_spinlock.c).
 */
#ifndef LULL_SPINLOCK_H
#define LULL_SPINLOCK_H

#include "compiler.h"
#include "arch/irqflags.h"

typedef struct {
	volatile uint32_t locked;       /* 0 free, 1 held */
} spinlock_t;

#define SPINLOCK_INIT { 0 }

static inline void cpu_relax(void)
{
#if defined(__i386__) || defined(__x86_64__)
	__asm__ __volatile__("pause" ::: "memory");     /* SDM: PAUSE, a spin-wait hint */
#endif
}

static inline void spin_lock(spinlock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			cpu_relax();            /* read, not write, while it is held */
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED) != 0;
}

/* Two locks of per-CPU structures (a timer moving from one CPU's queue to
 * another's), taken in a fixed order, the lower `order` (CPU number)
 * first, so two CPUs taking the same pair never wait for each other.  The
 * same lock twice is taken once. */
static inline void spin_lock_two(spinlock_t *a, unsigned a_order, spinlock_t *b, unsigned b_order)
{
	if (a == b) {
		spin_lock(a);
	} else {
		spin_lock(a_order < b_order ? a : b);
		spin_lock(a_order < b_order ? b : a);
	}
}

static inline void spin_unlock_two(spinlock_t *a, spinlock_t *b)
{
	spin_unlock(a);
	if (a != b)
		spin_unlock(b);
}

static inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = arch_irq_save();
	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}

#endif
