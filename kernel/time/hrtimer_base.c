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
	if (any && expires_ns)
		*expires_ns = first_hard(b);
	if (any && name)
		*name = b->hard_heap[0]->name;
	spin_unlock_irqrestore(&b->lock, flags);
	return any;
}

const char *hrtimer_next_name(void)
{
	const char *name = NULL;
	hrtimer_next_expiry_on(arch_this_cpu_id(), NULL, &name);
	return name;
}

unsigned hrtimer_count_on(unsigned cpu)
{
	return READ_ONCE(time_hrtimer_base(cpu)->size);
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
