/* kernel/arch/trap.c — where every interrupt and exception arrives in C.
 *
 * boot/vectors.asm saves the registers and calls trap_dispatch() with
 * interrupts off.  Vectors 0..31 are CPU exceptions: in a task (ring 3)
 * the task is killed with one line (the scheduler's fault op); in the
 * kernel there is no way to recover, so each one prints a report and
 * halts.  Vector 0x80 from ring 3 is a system call (the syscall op).
 * Everything else is a device interrupt (kernel/arch/irq.c).
 *
 * A CPU exception in the kernel is always a bug, so the report tries to give a student everything needed to find it: the
 * exception's name, the error code decoded, where it happened (look the EIP
 * up in build/lull.asm or with `addr2line -e build/lull.elf EIP`), all the
 * registers, CR2 for a page fault, the top of the stack and the chain of
 * return addresses.  Then the CPU halts — never a silent reboot.
 */
#include "arch/irq.h"
#include "arch/smp.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "time/path.h"
#include "kprintf.h"
#include "panic.h"

#define STACK_DUMP_WORDS   16
#define BACKTRACE_FRAMES   8
#define VEC_PAGE_FAULT     14

/* Intel SDM Vol. 3A, Table 6-1. */
static const char *const exception_names[VEC_EXCEPTIONS] = {
	[0] = "#DE divide error",            [1] = "#DB debug",
	[2] = "NMI",                         [3] = "#BP breakpoint",
	[4] = "#OF overflow",                [5] = "#BR bound range exceeded",
	[6] = "#UD invalid opcode",          [7] = "#NM device not available",
	[8] = "#DF double fault",            [9] = "coprocessor segment overrun",
	[10] = "#TS invalid TSS",            [11] = "#NP segment not present",
	[12] = "#SS stack-segment fault",    [13] = "#GP general protection",
	[14] = "#PF page fault",             [16] = "#MF x87 floating-point error",
	[17] = "#AC alignment check",        [18] = "#MC machine check",
	[19] = "#XM SIMD floating-point",    [20] = "#VE virtualization",
	[21] = "#CP control protection",
};

/* On the stack this CPU runs on: its boot stack, or the running task's. */
static bool on_kernel_stack(uint32_t addr)
{
	const struct cpu *c = this_cpu();
	return c->stack_guard && addr >= (uint32_t)c->stack_guard && addr + 8 <= c->stack_top;
}

__noreturn void exception_report(const struct trapframe *tf)
{
	const char *name = exception_names[tf->vector];
	/* Same privilege level: the CPU pushed no ESP/SS, so the stack at the
	 * time of the fault starts right after the EFLAGS it pushed. */
	uint32_t esp = (uint32_t)&tf->eflags + sizeof(tf->eflags);

	kprintf("\n*** CPU exception %u: %s ***\n", tf->vector, name ? name : "reserved");
	kprintf("error code: 0x%08x", tf->error);
	if (tf->vector == VEC_PAGE_FAULT)
		kprintf(" (%s, %s, %s)", tf->error & 1 ? "protection violation" : "page not present",
		        tf->error & 2 ? "write" : "read", tf->error & 4 ? "user" : "kernel");
	else if (tf->error && tf->vector != 8)
		kprintf(" (selector index %u, %s%s)", tf->error >> 3,
		        tf->error & 2 ? "IDT" : (tf->error & 4 ? "LDT" : "GDT"),
		        tf->error & 1 ? ", external" : "");
	kprintf("\nEIP: %p  CS: 0x%04x  EFLAGS: 0x%08x\n", (void *)tf->eip, tf->cs, tf->eflags);
	kprintf("EAX: 0x%08x  EBX: 0x%08x  ECX: 0x%08x  EDX: 0x%08x\n", tf->eax, tf->ebx, tf->ecx, tf->edx);
	kprintf("ESI: 0x%08x  EDI: 0x%08x  EBP: 0x%08x  ESP: 0x%08x\n", tf->esi, tf->edi, tf->ebp, esp);
	kprintf("DS: 0x%04x  ES: 0x%04x  FS: 0x%04x  GS: 0x%04x\n", tf->ds, tf->es, tf->fs, tf->gs);
	kprintf("CR0: 0x%08x  CR2: 0x%08x  CR3: 0x%08x\n", read_cr0(), read_cr2(), read_cr3());
	if (tf->vector == VEC_PAGE_FAULT)
		kprintf("faulting address (CR2): %p\n", (void *)read_cr2());

	kprintf("stack:");
	for (unsigned i = 0; i < STACK_DUMP_WORDS && on_kernel_stack(esp + 4 * i); i++)
		kprintf("%s0x%08x", i % 8 ? " " : "\n  ", ((uint32_t *)esp)[i]);
	kprintf("\nbacktrace: %p", (void *)tf->eip);
	uint32_t ebp = tf->ebp;
	for (unsigned i = 0; i < BACKTRACE_FRAMES && on_kernel_stack(ebp); i++) {
		uint32_t ret = ((uint32_t *)ebp)[1];
		kprintf(" %p", (void *)ret);
		ebp = ((uint32_t *)ebp)[0];
	}
	kprintf("\n(look up addresses in build/lull.asm or: addr2line -e build/lull.elf ADDR)\n");
	kprintf("system halted.\n");
	halt_forever();
}


uint32_t *stack_guard_init(void *stack_bottom)
{
	uint32_t *g = stack_bottom;
	for (unsigned i = 0; i < STACK_GUARD_BYTES / 4; i++)
		g[i] = STACK_GUARD_WORD;
	return g;
}

/* Words [from, STACK_GUARD_BYTES / 4) of this CPU's guard: any changed
 * is a panic naming the highest, which is where the overflow reached (a
 * stack that grows down touches it first).  The scan only ORs the
 * differences; the search for the word runs once something differs. */
static void guard_check_from(unsigned from)
{
	struct cpu *c = this_cpu();
	const uint32_t *g = c->stack_guard;
	if (!g)
		return;
	uint32_t diff = 0;
	for (unsigned i = from; i < STACK_GUARD_BYTES / 4; i++)
		diff |= g[i] ^ STACK_GUARD_WORD;
	if (!diff)
		return;
	unsigned i = STACK_GUARD_BYTES / 4;
	while (g[--i] == STACK_GUARD_WORD)
		;
	panic("stack_guard_check: CPU %u's kernel stack overflowed or was written "
	      "over: its guard word at %p is 0x%08x (guard %p..%p, esp %p)",
	      c->index, (void *)&g[i], g[i], (void *)g, (void *)(g + STACK_GUARD_BYTES / 4),
	      __builtin_frame_address(0));
}

void stack_guard_check(void) { guard_check_from(0); }
void stack_guard_check_top(void) { guard_check_from(STACK_GUARD_BYTES / 4 - STACK_GUARD_TOP_WORDS); }

/* The guard's top is checked as each interrupt arrives (before its
 * handler can push deeper: timers run from it, with interrupts on) and as
 * it leaves; the whole guard as the CPU goes idle (include/arch/trap.h). */
static const struct trap_task_ops *task_ops;

void trap_set_task_ops(const struct trap_task_ops *ops) { task_ops = ops; }

void trap_dispatch(struct trapframe *tf)
{
	path_stamp(PATH_ENTRY);
	bool user = trap_from_user(tf);         /* only once task_ops are set */
	this_cpu()->trap_from_user = user;      /* the tick bills user or system by it */
	if (user)
		task_ops->enter_from_user();
	if (tf->vector < VEC_EXCEPTIONS) {
		if (user)
			task_ops->fault(tf->vector, tf->eip, tf->error, read_cr2());
		exception_report(tf);
	}
	if (user && tf->vector == VEC_SYSCALL) {
		task_ops->syscall(tf);
	} else {
		stack_guard_check_top();
		path_stamp(PATH_GUARD);
		irq_dispatch(tf);
		stack_guard_check_top();
		if (task_ops)
			task_ops->irq_exit();   /* this CPU's waiters look again */
	}
	path_stamp(PATH_EXIT);
	if (user)
		task_ops->return_to_user();     /* a slice that ended, a kill */
}
