/* include/arch/irq.h — attaching handlers to interrupt lines.
 *
 * Legacy ISA devices (UART, keyboard, PIT, RTC) raise IRQ lines 0..15 that
 * the 8259 PIC turns into vectors 0x20..0x2F.  The local APIC raises its own
 * vectors directly.  Either way a handler is a plain function called with
 * interrupts off; the dispatcher counts every interrupt for `irqs`,
 * acknowledges it, and runs the hooks the tick code needs around it. */
#ifndef LULL_IRQ_H
#define LULL_IRQ_H

#include "compiler.h"

#define IRQ_LINES 16

typedef void (*irq_handler_t)(void *ctx);

/* The interrupt controller behind lines 0..IRQ_LINES-1 (on a PC the 8259A
 * pair).  Its driver hands it over once, before any line is requested, so
 * that this CPU floor names no device. */
struct irq_chip {
	const char *name;                   /* "8259 PIC", in `irqs` */
	void (*mask)(unsigned line);
	void (*unmask)(unsigned line);
	void (*eoi)(unsigned line);         /* after the line's handler ran */
	/* true: the line fired with no request behind it; the dispatcher runs
	 * no handler and sends no EOI (the chip sends what it needs itself) */
	bool (*is_spurious)(unsigned line);
};
void irq_set_chip(const struct irq_chip *chip);

/* Attach to ISA line 0..15 and unmask it.  -EBUSY if taken, -EINVAL bad line. */
int irq_request(unsigned line, irq_handler_t fn, void *ctx, const char *name);
void irq_free(unsigned line);
/* Put fn(ctx) in place of line's handler, handing back the old one (to
 * wrap it, and to put it back with another irq_replace): how a test
 * wraps an interrupt source from outside its driver (`inject irq-storm`).
 * ISA lines interrupt the boot CPU only, and the swap is made with its
 * interrupts off.  0, or -EINVAL (no such line, or nothing on it). */
int irq_replace(unsigned line, irq_handler_t fn, void *ctx, irq_handler_t *old_fn, void **old_ctx);
void irq_mask(unsigned line);
void irq_unmask(unsigned line);

/* Attach to a raw vector (local APIC sources); eoi acknowledges it. */
int irq_request_vector(unsigned vector, irq_handler_t fn, void *ctx,
                       const char *name, void (*eoi)(void));

/* Called from trap_dispatch for vectors >= 32. */
struct trapframe;
void irq_dispatch(struct trapframe *tf);

/* Name of the device on a vector ("uart", "pit", …) or NULL. */
const char *irq_vector_name(unsigned vector);

/* Print the per-vector counts like /proc/interrupts (the `irqs` command). */
void irq_print_counts(void);

/* Take an interrupt on `vector` now, on this CPU, raised by the software
 * (`int`) rather than by a device: it runs the whole path, handler, EOI
 * and tick hooks included, as one the device did not mean to send.  For a
 * vector at or above VEC_IRQ_BASE only; interrupts must be on. */
void irq_raise_soft(unsigned vector);



/* Hooks the tick layer provides (kernel/time/tick.c): called before any
 * handler runs (catch up time after an idle skip) and after it returns
 * (run expired timers with interrupts enabled). */
void tick_irq_enter(unsigned vector);
void tick_irq_exit(void);

#endif
