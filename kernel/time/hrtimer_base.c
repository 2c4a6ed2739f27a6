/* kernel/time/hrtimer_base.c — each CPU's hrtimer heap as a whole: emptied
 * at boot, and asked from outside what it holds (its earliest deadline,
 * how many, each timer in turn), as timer_base.c does for the wheels.  The
 * API that arms and runs single timers is hrtimer.c; the heaps themselves,
 * hrtimer_heap.c.
 */
#include "spinlock.h"
#include "time/arch.h"
#include "time/hrtimer.h"
#include "time/percpu.h"
#include "hrtimer_heap.h"

bool hrtimer_next_expiry_on(unsigned cpu, uint64_t *expires_ns, const char **name)
{
	struct hrtimer_base *b = time_hrtimer_base(cpu);
	unsigned long flags = spin_lock_irqsave(&b->lock);
	bool any = b->size > 0;
	if (any) {
		*expires_ns = first_hard(b);
		if (name)
			*name = b->hard_heap[0]->name;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return any;
}

bool hrtimer_next_expiry(uint64_t *expires_ns)
{
	return hrtimer_next_expiry_on(arch_this_cpu_id(), expires_ns, NULL);
}

const char *hrtimer_next_name(void)
{
	uint64_t ns;
	const char *name = NULL;
	hrtimer_next_expiry_on(arch_this_cpu_id(), &ns, &name);
	return name;
}

unsigned hrtimer_count_on(unsigned cpu)
{
	return READ_ONCE(time_hrtimer_base(cpu)->size);
}

unsigned hrtimer_count(void)
{
	return hrtimer_count_on(arch_this_cpu_id());
}

/* In heap order, which is not deadline order beyond the first. */
void hrtimer_for_each_on(unsigned cpu, void (*fn)(struct hrtimer *t, void *ctx), void *ctx)
{
	struct hrtimer_base *b = time_hrtimer_base(cpu);
	unsigned long flags = spin_lock_irqsave(&b->lock);
	for (unsigned i = 0; i < b->size; i++)
		fn(b->heap[i], ctx);
	spin_unlock_irqrestore(&b->lock, flags);
}

void hrtimer_for_each(void (*fn)(struct hrtimer *t, void *ctx), void *ctx)
{
	hrtimer_for_each_on(arch_this_cpu_id(), fn, ctx);
}

/* Every CPU's heap empty, each knowing its CPU (at boot, and in the host
 * tests between cases). */
void hrtimer_bases_init(void)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct hrtimer_base *b = time_hrtimer_base(cpu);
		unsigned long flags = spin_lock_irqsave(&b->lock);
		for (unsigned i = 0; i < b->size; i++) {
			b->heap[i]->heap_index = -1;
			b->heap[i]->hard_index = -1;
		}
		b->size = 0;
		b->runs = NULL;
		b->cpu = cpu;
		spin_unlock_irqrestore(&b->lock, flags);
	}
}
