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
 *
 * The PIC itself is a driver a floor above this file: it hands its
 * operations over with irq_set_chip() (struct irq_chip).
 */
#include "arch/irq.h"
#include "arch/smp.h"
#include "kprintf.h"
#include "panic.h"
#include "errno.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "time/path.h"

#define VECTORS 256

struct irq_desc {
	irq_handler_t handler;
	void *ctx;
	const char *name;
	void (*eoi)(void);          /* NULL: lines 0..15 use chip->eoi(line) */
};

static struct irq_desc descs[VECTORS];
static const struct irq_chip *chip;
static uint64_t spurious[IRQ_LINES];
static uint64_t unexpected;

static bool is_pic_vector(unsigned v) { return v >= VEC_IRQ_BASE && v < VEC_IRQ_BASE + IRQ_LINES; }

void irq_set_chip(const struct irq_chip *c) { chip = c; }

/* The controller, for `fn`; a line used before pic_init is a bug in the
 * init order of kernel/main.c. */
static const struct irq_chip *line_chip(const char *fn)
{
	if (!chip)
		panic("%s: no interrupt controller yet (pic_init comes first)", fn);
	return chip;
}

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
	line_chip("irq_request")->unmask(line);
	irq_restore(f);
	return 0;
}

int irq_replace(unsigned line, irq_handler_t fn, void *ctx, irq_handler_t *old_fn, void **old_ctx)
{
	if (line >= IRQ_LINES || !fn)
		return -EINVAL;
	struct irq_desc *d = &descs[VEC_IRQ_BASE + line];
	uint32_t f = irq_save();
	int rc = d->handler ? 0 : -EINVAL;
	if (rc == 0) {
		*old_fn = d->handler;
		*old_ctx = d->ctx;
		d->handler = fn;
		d->ctx = ctx;
	}
	irq_restore(f);
	return rc;
}

void irq_free(unsigned line)
{
	if (line >= IRQ_LINES)
		return;
	uint32_t f = irq_save();
	line_chip("irq_free")->mask(line);
	descs[VEC_IRQ_BASE + line].handler = NULL;
	irq_restore(f);
}

void irq_mask(unsigned line)   { if (line < IRQ_LINES) line_chip("irq_mask")->mask(line); }
void irq_unmask(unsigned line) { if (line < IRQ_LINES) line_chip("irq_unmask")->unmask(line); }

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

	if (pic && line_chip("irq_dispatch")->is_spurious(v - VEC_IRQ_BASE)) {
		spurious[v - VEC_IRQ_BASE]++;
		return;
	}
	struct cpu *c = this_cpu();
	c->irqs[v]++;                   /* per CPU: no two CPUs write one counter */
	if (c->state == CPU_IDLE && !c->halt_end)
		c->halt_end = tsc_or_zero();    /* the halt ends here (kernel/idle.c) */
	tick_irq_enter(v);              /* this CPU's tick (each CPU has its own) */
	path_stamp(PATH_IRQ_ENTER);
	if (d->handler)
		d->handler(d->ctx);
	path_stamp(PATH_HANDLER);
	if (!d->handler && unexpected++ == 0)
		kprintf("irq: unexpected interrupt on vector %u (no handler; counted in 'irqs')\n", v);
	if (pic)
		chip->eoi(v - VEC_IRQ_BASE);
	else if (d->eoi)
		d->eoi();
	path_stamp(PATH_EOI);

	tick_irq_exit();
}

extern const uint8_t soft_int_stubs[];
#define SOFT_INT_STUB_BYTES 3           /* boot/vectors.asm: int N; ret */

void irq_raise_soft(unsigned vector)
{
	if (vector < VEC_IRQ_BASE || vector >= VECTORS)
		panic("irq_raise_soft: vector %u is not a device's", vector);
	((void (*)(void))(soft_int_stubs + vector * SOFT_INT_STUB_BYTES))();
}

/* One column per CPU when there are several (as /proc/interrupts), then
 * the total; with one CPU just the count. */
void irq_print_counts(void)
{
	bool several = cpus_online > 1;
	kprintf(" vector  line  %-12s", "device");
	for (unsigned c = 0; several && c < cpus_online; c++)
		kprintf(" %9s%u", "CPU", c);
	kprintf(" %12s\n", several ? "total" : "count");
	for (unsigned v = VEC_EXCEPTIONS; v < VECTORS; v++) {
		struct irq_desc *d = &descs[v];
		uint64_t total = 0;
		for (unsigned c = 0; c < cpus_online; c++)
			total += cpus[c].irqs[v];
		if (!d->handler && !total)
			continue;
		if (is_pic_vector(v))
			kprintf("   0x%02x  %4u  %-12s", v, v - VEC_IRQ_BASE, d->name ? d->name : "-");
		else
			kprintf("   0x%02x  lapic %-12s", v, d->name ? d->name : "-");
		for (unsigned c = 0; several && c < cpus_online; c++)
			kprintf(" %10llu", (unsigned long long)cpus[c].irqs[v]);
		kprintf(" %12llu\n", (unsigned long long)total);
	}
	for (unsigned l = 0; l < IRQ_LINES; l++)
		if (spurious[l])
			kprintf("   spurious IRQ%u (%s): %llu\n", l, chip->name, (unsigned long long)spurious[l]);
	if (unexpected)
		kprintf("   unexpected (no handler): %llu\n", (unsigned long long)unexpected);
}
