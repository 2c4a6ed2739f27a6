/* kernel/arch/irq.c — interrupt lines: who owns them, how often they fired, and
 * the order of events around each handler.
 *
 * For every device interrupt:
 *   1. a spurious IRQ7/IRQ15 from the PIC is counted and dropped;
 *   2. tick_irq_enter(): if the CPU was idle with the tick stopped, time and
 *      jiffies are caught up *before* the handler runs, so it sees the
 *      right time (the dynamic-tick rule "catch up first");
 *   3. the handler runs, with interrupts still off;
 *   4. the interrupt is acknowledged (PIC EOI or local APIC EOI);
 *   5. tick_irq_exit(): expired timers run, with interrupts enabled.
 */
#include "drivers/platform.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "errno.h"
#include "arch/trap.h"
#include "arch/x86.h"

#define VECTORS 256

struct irq_desc {
	irq_handler_t handler;
	void *ctx;
	const char *name;
	void (*eoi)(void);          /* NULL: PIC lines use pic_eoi(line) */
	uint64_t count;
};

static struct irq_desc descs[VECTORS];
static uint64_t spurious[IRQ_LINES];
static uint64_t unexpected;
volatile int irq_current_vector = -1;

static bool is_pic_vector(unsigned v) { return v >= VEC_IRQ_BASE && v < VEC_IRQ_BASE + IRQ_LINES; }

int irq_request(unsigned line, irq_handler_t fn, void *ctx, const char *name)
{
	if (line >= IRQ_LINES || !fn)
		return -EINVAL;
	struct irq_desc *d = &descs[VEC_IRQ_BASE + line];
	if (d->handler)
		return -EBUSY;
	uint32_t f = irq_save();
	d->handler = fn;
	d->ctx = ctx;
	d->name = name;
	d->eoi = NULL;
	pic_unmask(line);
	irq_restore(f);
	return 0;
}

void irq_free(unsigned line)
{
	if (line >= IRQ_LINES)
		return;
	uint32_t f = irq_save();
	pic_mask(line);
	descs[VEC_IRQ_BASE + line].handler = NULL;
	irq_restore(f);
}

void irq_mask(unsigned line)   { if (line < IRQ_LINES) pic_mask(line); }
void irq_unmask(unsigned line) { if (line < IRQ_LINES) pic_unmask(line); }

int irq_request_vector(unsigned vector, irq_handler_t fn, void *ctx,
                       const char *name, void (*eoi)(void))
{
	if (vector < VEC_EXCEPTIONS || vector >= VECTORS || is_pic_vector(vector) || !fn)
		return -EINVAL;
	struct irq_desc *d = &descs[vector];
	if (d->handler)
		return -EBUSY;
	uint32_t f = irq_save();
	*d = (struct irq_desc){ .handler = fn, .ctx = ctx, .name = name, .eoi = eoi };
	irq_restore(f);
	return 0;
}

const char *irq_vector_name(unsigned vector)
{
	return vector < VECTORS ? descs[vector].name : NULL;
}

void irq_dispatch(struct trapframe *tf)
{
	unsigned v = tf->vector;
	struct irq_desc *d = &descs[v];
	bool pic = is_pic_vector(v);

	if (pic && pic_is_spurious(v - VEC_IRQ_BASE)) {
		spurious[v - VEC_IRQ_BASE]++;
		return;
	}
	d->count++;
	int outer = irq_current_vector;
	irq_current_vector = (int)v;

	tick_irq_enter(v);
	if (d->handler)
		d->handler(d->ctx);
	else if (unexpected++ == 0)
		kprintf("irq: unexpected interrupt on vector %u (no handler; counted in 'irqs')\n", v);
	if (pic)
		pic_eoi(v - VEC_IRQ_BASE);
	else if (d->eoi)
		d->eoi();

	irq_current_vector = outer;
	tick_irq_exit();
}

void irq_print_counts(void)
{
	kprintf(" vector  line  %-12s %12s\n", "device", "count");
	for (unsigned v = VEC_EXCEPTIONS; v < VECTORS; v++) {
		struct irq_desc *d = &descs[v];
		if (!d->handler && !d->count)
			continue;
		if (is_pic_vector(v))
			kprintf("   0x%02x  %4u  %-12s %12llu\n", v, v - VEC_IRQ_BASE,
			        d->name ? d->name : "-", (unsigned long long)d->count);
		else
			kprintf("   0x%02x  lapic %-12s %12llu\n", v,
			        d->name ? d->name : "-", (unsigned long long)d->count);
	}
	for (unsigned l = 0; l < IRQ_LINES; l++)
		if (spurious[l])
			kprintf("   spurious IRQ%u (8259 PIC): %llu\n", l, (unsigned long long)spurious[l]);
	if (unexpected)
		kprintf("   unexpected (no handler): %llu\n", (unsigned long long)unexpected);
}
