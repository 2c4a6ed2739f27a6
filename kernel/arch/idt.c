/* kernel/arch/idt.c — the Interrupt Descriptor Table: all 256 vectors point at
 * the stubs in boot/vectors.asm.
 *
 * Spec: Intel SDM Vol. 3A, 6.10 (IDT) and 6.11 (gate descriptors).  Every
 * entry is a 32-bit interrupt gate, which clears IF on entry: handlers start
 * with interrupts off, and kernel/arch/irq.c decides when to turn them back on.
 * Only the system call's gate may be used from ring 3.
 */
#include "arch/trap.h"

#define IDT_ENTRIES         256
#define IDT_GATE_INTERRUPT  0x8E    /* P=1, DPL=0, 32-bit interrupt gate */
#define IDT_GATE_USER       0xEE    /* the same with DPL=3: `int` from ring 3 may use it */

struct idt_entry {
	uint16_t offset_lo, selector;
	uint8_t zero, type_attr;
	uint16_t offset_hi;
} __packed;
_Static_assert(sizeof(struct idt_entry) == 8, "SDM Figure 6-2");
_Static_assert(offsetof(struct idt_entry, selector) == 2, "SDM Figure 6-2: segment selector");
_Static_assert(offsetof(struct idt_entry, type_attr) == 5, "SDM Figure 6-2: P, DPL, gate type");
_Static_assert(offsetof(struct idt_entry, offset_hi) == 6, "SDM Figure 6-2: offset 31:16");

static struct idt_entry idt[IDT_ENTRIES];
extern const uint32_t trap_vectors[IDT_ENTRIES];

/* What LIDT loads: a 16-bit limit, then a 32-bit base (SDM Vol. 3A, 6.10,
 * Figure 6-1). */
struct __packed idt_ptr { uint16_t limit; uint32_t base; };
_Static_assert(sizeof(struct idt_ptr) == 6 && offsetof(struct idt_ptr, base) == 2, "SDM Figure 6-1");

void idt_init(void)
{
	for (unsigned v = 0; v < IDT_ENTRIES; v++) {
		uint32_t handler = trap_vectors[v];
		idt[v] = (struct idt_entry){
			.offset_lo = (uint16_t)handler,
			.selector = GDT_KERNEL_CODE,
			/* Every other vector raised by `int` in ring 3 is a #GP
			 * (SDM Vol. 3A, 6.12.1.1): a task's `int 0x20` is not a tick. */
			.type_attr = v == VEC_SYSCALL ? IDT_GATE_USER : IDT_GATE_INTERRUPT,
			.offset_hi = (uint16_t)(handler >> 16),
		};
	}
	idt_load();
}

void idt_load(void)
{
	struct idt_ptr p = { sizeof(idt) - 1, (uint32_t)idt };
	__asm__ __volatile__("lidt %0" :: "m"(p));
}
