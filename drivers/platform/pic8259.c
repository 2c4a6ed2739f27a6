/* drivers/platform/pic8259.c — the two cascaded 8259A programmable interrupt
 * controllers of the PC/AT.
 *
 * Spec: Intel 8259A datasheet (order 231468), "Programming the 8259A"
 * (ICW1-ICW4, OCW1-OCW3).  The BIOS maps IRQ 0-7 to vectors 8-15, on top of
 * CPU exceptions, so we remap master to 0x20 and slave to 0x28.  Lines stay
 * masked until a driver asks for one: an unused device should not be able to
 * interrupt (or wake) the CPU.  pic_init hands the chip's operations to the
 * interrupt dispatcher (kernel/arch/irq.c), which never calls it by name.
 */
#include "drivers/platform.h"
#include "arch/irq.h"
#include "arch/trap.h"
#include "arch/x86.h"

#define PIC1_CMD        0x20
#define PIC1_DATA       0x21
#define PIC2_CMD        0xA0
#define PIC2_DATA       0xA1

#define ICW1_ICW4       0x01    /* ICW4 follows */
#define ICW1_INIT       0x10    /* start initialization */
#define ICW3_MASTER_SLAVE_ON_IRQ2 0x04   /* bit mask: slave on input 2 */
#define ICW3_SLAVE_ID   0x02    /* slave's cascade identity */
#define ICW4_8086       0x01    /* 8086/88 mode */
#define OCW2_EOI        0x20    /* non-specific end of interrupt */
#define OCW3_READ_ISR   0x0B    /* next read of the command port gives ISR */
#define PIC_CASCADE_LINE 2
#define PIC_SPURIOUS_LINE 7     /* the lowest-priority input of each chip */

static uint16_t mask_bits = 0xFFFF;     /* 1 = masked; bit n = IRQ n */

static void write_masks(void)
{
	outb(PIC1_DATA, (uint8_t)mask_bits);
	outb(PIC2_DATA, (uint8_t)(mask_bits >> 8));
}

static void pic_mask(unsigned line)   { mask_bits |= (uint16_t)(1u << line);  write_masks(); }
static void pic_unmask(unsigned line) { mask_bits &= (uint16_t)~(1u << line); write_masks(); }
void pic_mask_all(void)               { mask_bits = 0xFFFF; write_masks(); }

static void pic_eoi(unsigned line)
{
	if (line >= 8)
		outb(PIC2_CMD, OCW2_EOI);
	outb(PIC1_CMD, OCW2_EOI);
}

/* QUIRK: spurious IRQ7 / IRQ15.
 * Symptom: an interrupt arrives on line 7 (or 15) although no device raised
 * it.  Hardware: every 8259A — if a request goes away before the CPU's
 * acknowledge cycle, the chip still answers with its lowest-priority vector.
 * Workaround: read the In-Service Register; if the line's bit is clear the
 * interrupt was spurious: do not run a handler and do not EOI that chip (a
 * spurious IRQ15 still needs an EOI to the master, whose cascade input did
 * fire).  Reference: 8259A datasheet, "Interrupt Sequence", note on IR
 * inputs; OSDev wiki "8259 PIC", Spurious IRQs.
 *
 * QUIRK: Bochs turns a vanished IRQ0 into IRQ7.
 * Symptom: `irqs` counts "spurious IRQ7 (8259 PIC)" once for each switch
 * of the tick to or from the PIT in Bochs (2 after `clockevent pit`,
 * `clockevent hpet`), never in QEMU.  Emulator: Bochs 2.7 clears a line's
 * request when the line goes low, as the 8259A does, but keeps INTR
 * raised, so the CPU's acknowledge finds no request and gets vector 7.
 * The likely path: a tick switch writes channel 0's control word, which
 * drops OUT, after OUT's edge was signalled with interrupts off.  QEMU
 * keeps an edge's request latched.  Workaround:
 * the one above; nothing else is needed.  Reference: Bochs 2.7
 * iodev/pic.cc, lower_irq() and IAC(). */
static bool pic_is_spurious(unsigned line)
{
	if (line != PIC_SPURIOUS_LINE && line != PIC_SPURIOUS_LINE + 8)
		return false;
	uint16_t port = line < 8 ? PIC1_CMD : PIC2_CMD;
	outb(port, OCW3_READ_ISR);
	bool in_service = inb(port) & (1u << PIC_SPURIOUS_LINE);
	if (!in_service && line >= 8)
		outb(PIC1_CMD, OCW2_EOI);
	return !in_service;
}

static const struct irq_chip pic_chip = {
	.name = "8259 PIC",
	.mask = pic_mask,
	.unmask = pic_unmask,
	.eoi = pic_eoi,
	.is_spurious = pic_is_spurious,
};

void pic_init(void)
{
	outb(PIC1_CMD, ICW1_INIT | ICW1_ICW4);  io_wait();
	outb(PIC2_CMD, ICW1_INIT | ICW1_ICW4);  io_wait();
	outb(PIC1_DATA, VEC_IRQ_BASE);          io_wait();   /* ICW2: vector base */
	outb(PIC2_DATA, VEC_IRQ_BASE + 8);      io_wait();
	outb(PIC1_DATA, ICW3_MASTER_SLAVE_ON_IRQ2); io_wait();
	outb(PIC2_DATA, ICW3_SLAVE_ID);         io_wait();
	outb(PIC1_DATA, ICW4_8086);             io_wait();
	outb(PIC2_DATA, ICW4_8086);             io_wait();
	/* Everything masked except the cascade input, through which every
	 * slave line (8-15) must pass. */
	mask_bits = 0xFFFF & ~(1u << PIC_CASCADE_LINE);
	write_masks();
	irq_set_chip(&pic_chip);
}
