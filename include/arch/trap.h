/* include/arch/trap.h — what an interrupt or exception looks like to C code.
 *
 * boot/vectors.asm builds this frame on the stack for every vector and calls
 * trap_dispatch().  Field order is the reverse of the push order. */
#ifndef LULL_TRAP_H
#define LULL_TRAP_H

#include "compiler.h"
#include "arch/smp.h"

struct trapframe {
	uint32_t gs, fs, es, ds;                        /* pushed by trap_common */
	uint32_t edi, esi, ebp, esp_pushad, ebx, edx, ecx, eax;  /* pushad */
	uint32_t vector, error;                         /* pushed by the stub */
	uint32_t eip, cs, eflags;                       /* pushed by the CPU */
	uint32_t user_esp, user_ss;                     /* ... only from ring 3 */
};
/* The offsets boot/vectors.asm produces: trap_common pushes gs last, so it
 * is first; PUSHAD stores eax first, so highest (SDM Vol. 2B, PUSHA/PUSHAD);
 * the stub's vector number below the error code; and what the CPU pushes
 * for an interrupt that does not change privilege: eflags, cs, eip, no
 * ss:esp (SDM Vol. 3A, 6.12.1, Figure 6-4). */
_Static_assert(offsetof(struct trapframe, gs) == 0, "trap_common: gs pushed last");
_Static_assert(offsetof(struct trapframe, edi) == 16, "PUSHAD: after 4 segment registers");
_Static_assert(offsetof(struct trapframe, eax) == 44, "PUSHAD: 8 registers, eax pushed first");
_Static_assert(offsetof(struct trapframe, vector) == 48, "the stub pushes the vector after the error code");
_Static_assert(offsetof(struct trapframe, error) == 52, "error code: the CPU's or the stub's 0");
_Static_assert(offsetof(struct trapframe, eip) == 56, "SDM Figure 6-4: eip below cs and eflags");
_Static_assert(offsetof(struct trapframe, user_esp) == 68, "SDM Figure 6-4: ss:esp above eflags, "
               "pushed only with a privilege change");
#define TRAPFRAME_CS_OFFSET 60          /* boot/vectors.asm tests the RPL there */
_Static_assert(offsetof(struct trapframe, cs) == TRAPFRAME_CS_OFFSET, "boot/vectors.asm");

/* Did the interrupt or exception arrive in ring 3 (a task)? */
static inline bool trap_from_user(const struct trapframe *tf) { return (tf->cs & 3) == 3; }

/* Segment selectors (kernel/arch/gdt.c): index * 8, TI=0, and the RPL. */
#define GDT_KERNEL_CODE     0x08
#define GDT_KERNEL_DATA     0x10
#define GDT_USER_CODE       0x18
#define GDT_USER_DATA       0x20
#define USER_CS             (GDT_USER_CODE | 3)
#define USER_DS             (GDT_USER_DATA | 3)
#define GDT_PERCPU_FIRST    5       /* CPU i's data segment (FS) is entry 5 + i */
#define GDT_TSS_FIRST       (GDT_PERCPU_FIRST + NR_CPUS)     /* and its TSS 5 + NR_CPUS + i */
#define GDT_PERCPU_SELECTOR(i) ((uint16_t)((GDT_PERCPU_FIRST + (i)) * 8))
#define GDT_TSS_SELECTOR(i)    ((uint16_t)((GDT_TSS_FIRST + (i)) * 8))
/* From a CPU's TSS selector (STR) to its FS selector: boot/vectors.asm. */
#define GDT_TSS_TO_PERCPU   (GDT_TSS_SELECTOR(0) - GDT_PERCPU_SELECTOR(0))
_Static_assert(GDT_TSS_TO_PERCPU == 64, "boot/vectors.asm: TSS_TO_PERCPU");

/* Vector layout (kernel/arch/idt.c): */
/* The bottom STACK_GUARD_BYTES of every kernel stack (the boot CPU's in
 * boot/entry.asm, each AP's in its struct cpu) hold a known pattern.  A
 * stack that grew too deep, or a stray write, overwrites it: a panic
 * report then names the CPU and the first word found changed, instead of
 * silent corruption of whatever lies below the stack.  A whole KiB, so
 * that the interrupt that finds it can still push its frames without
 * leaving the stack (a canary of one word would be overrun by the frames
 * of the very check that looks at it).
 *
 * Two checks.  Every interrupt's entry and exit look at the guard's top
 * STACK_GUARD_TOP_WORDS (stack_guard_check_top, from trap_dispatch): a
 * stack growing down reaches those first, and the look costs a few dozen
 * instructions on the timer's path instead of the thousands of a whole
 * scan.  The whole guard is scanned as the CPU goes idle
 * (stack_guard_check, from cpu_idle), off any waiter's path: a frame that
 * jumped over the top words and wrote below them is found there. */
#define STACK_GUARD_BYTES   1024
#define STACK_GUARD_TOP_WORDS 8
#define STACK_GUARD_WORD    0x57ac6a4dU     /* "stack guard", more or less */
uint32_t *stack_guard_init(void *stack_bottom);     /* fill it; returns it */
void stack_guard_check(void);                       /* this CPU's, whole; panics */
void stack_guard_check_top(void);                   /* its top words; panics */

#define VEC_EXCEPTIONS      32      /* 0..31 are CPU exceptions (SDM Table 6-1) */
#define VEC_IRQ_BASE        0x20    /* legacy IRQ 0..15 after the PIC remap */
#define VEC_SYSCALL         0x80    /* int 0x80: a task's system call (kernel/syscall.c) */
#define VEC_LAPIC_TIMER     0xF0    /* local APIC timer (drivers/timer/lapic.c) */
#define VEC_IPI_CALL        0xF1    /* another CPU has work for this one (kernel/arch/smp.c) */
#define VEC_LAPIC_ERROR     0xFE
#define VEC_LAPIC_SPURIOUS  0xFF    /* low 4 bits must be 1 on P6 (SDM 10.9) */

void trap_dispatch(struct trapframe *tf);

/* What traps need from the scheduler (kernel/task.c hands them over with
 * trap_set_task_ops in sched_start: the CPU's floor is below it).  Before
 * that, nothing runs in ring 3 and only irq_exit would be called.
 *   enter_from_user  a trap from ring 3 arrived (precise accounting)
 *   return_to_user   it is about to return there (slice ended, kill)
 *   fault            a CPU exception in ring 3: the task dies
 *   syscall          `int 0x80` from ring 3
 *   irq_exit         after every device interrupt: this CPU's waiters */
struct trap_task_ops {
	void (*enter_from_user)(void);
	void (*return_to_user)(void);
	void (*fault)(unsigned vector, uint32_t eip, uint32_t error, uint32_t addr);
	void (*syscall)(struct trapframe *tf);
	void (*irq_exit)(void);
};
void trap_set_task_ops(const struct trap_task_ops *ops);

/* kernel/arch/idt.c, kernel/arch/gdt.c */
void gdt_init(void);
/* Fill in CPU `index`'s segment (base: its struct cpu), load the table on
 * this CPU, and point FS at that segment.  Each CPU calls it once. */
void gdt_load_cpu(unsigned index, void *base);
/* What LGDT needs to load the table (for the AP trampoline). */
void gdt_pointer(uint16_t *limit, uint32_t *base);
/* The stack CPU `index` switches to when an interrupt arrives in ring 3:
 * the running task's kernel stack top. */
void tss_set_kernel_stack(unsigned index, uint32_t esp0);
/* Where CPU index's TSS keeps esp0: SYSENTER's stack pointer points here
 * (kernel/arch/sysenter.c). */
uint32_t *tss_esp0_field(unsigned index);
/* Load the IDT on this CPU (an AP: idt_init built it and loaded it on the
 * boot CPU). */
void idt_load(void);
void idt_init(void);

/* kernel/arch/trap.c: print the exception report and stop. */
__noreturn void exception_report(const struct trapframe *tf);

#endif
