/* include/arch/trap.h — what an interrupt or exception looks like to C code.
 *
 * boot/vectors.asm builds this frame on the stack for every vector and calls
 * trap_dispatch().  Field order is the reverse of the push order. */
#ifndef LULL_TRAP_H
#define LULL_TRAP_H

#include "compiler.h"

struct trapframe {
	uint32_t gs, fs, es, ds;                        /* pushed by trap_common */
	uint32_t edi, esi, ebp, esp_pushad, ebx, edx, ecx, eax;  /* pushad */
	uint32_t vector, error;                         /* pushed by the stub */
	uint32_t eip, cs, eflags;                       /* pushed by the CPU */
};

/* Vector layout (kernel/arch/idt.c): */
#define VEC_EXCEPTIONS      32      /* 0..31 are CPU exceptions (SDM Table 6-1) */
#define VEC_IRQ_BASE        0x20    /* legacy IRQ 0..15 after the PIC remap */
#define VEC_LAPIC_TIMER     0xF0    /* local APIC timer (drivers/timer/lapic.c) */
#define VEC_LAPIC_ERROR     0xFE
#define VEC_LAPIC_SPURIOUS  0xFF    /* low 4 bits must be 1 on P6 (SDM 10.9) */

void trap_dispatch(struct trapframe *tf);

/* kernel/arch/idt.c, kernel/arch/gdt.c */
void gdt_init(void);
void idt_init(void);

/* kernel/panic.c: print the exception report and stop. */
__noreturn void exception_report(const struct trapframe *tf);

#endif
