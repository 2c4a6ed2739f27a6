/* kernel/arch/switch.c — the context switch: one task's kernel stack for
 * another's (include/arch/switch.h).
 *
 * What a task owns is on its kernel stack when it is not running: the
 * registers of ring 3 in the trap frame its last interrupt or system call
 * pushed (general registers, segment registers, EIP, EFLAGS, ESP), and
 * under that the kernel's own call chain down to arch_switch, which pushes
 * the four registers the C calling convention says a callee keeps (EBX,
 * ESI, EDI, EBP; the others the caller has saved already).  So a switch
 * is: push those four, store ESP, load the other task's ESP, pop its four,
 * return.  The FPU is not switched: the kernel is built without x87/SSE
 * (-mgeneral-regs-only) and so are the programs, so no task has FPU state
 * (docs/tasks.md, "What a switch saves").
 *
 * CR3 stays: every task shares one address space (docs/tasks.md).  The
 * TSS's ESP0 and the stack guard are set by the scheduler (kernel/task.c).
 */
#include "arch/switch.h"
#include "arch/trap.h"

__asm__(
	".text\n"
	".globl arch_switch\n"
	"arch_switch:\n\t"
	"mov 4(%esp), %eax\n\t"         /* save */
	"mov 8(%esp), %edx\n\t"         /* new_esp */
	"push %ebp\n\t"
	"push %ebx\n\t"
	"push %esi\n\t"
	"push %edi\n\t"
	"mov %esp, (%eax)\n\t"
	"mov %edx, %esp\n\t"
	"pop %edi\n\t"
	"pop %esi\n\t"
	"pop %ebx\n\t"
	"pop %ebp\n\t"
	"ret\n");

/* What arch_switch pops, lowest address first, then where it returns. */
struct switch_frame {
	uint32_t edi, esi, ebx, ebp;
	uint32_t ret;
};

/* A new user task's first code: the scheduler's end of the switch, then
 * boot/vectors.asm's trap_return pops the frame below and IRETs. */
__asm__(".text\n"
	"arch_user_first:\n\t"
	"call task_first_user\n\t"
	"jmp trap_return\n");
extern char arch_user_first[];

#define EFLAGS_RESERVED 0x002u  /* bit 1 is always 1 (SDM Vol. 1, 3.4.3) */
#define EFLAGS_IF       0x200u

uint32_t arch_first_frame_user(uint8_t *kstack_top, uint32_t eip, uint32_t user_esp,
                               uint32_t eax, uint32_t ebx)
{
	struct trapframe *tf = (struct trapframe *)kstack_top - 1;
	*tf = (struct trapframe){
		.gs = USER_DS, .fs = USER_DS, .es = USER_DS, .ds = USER_DS,
		.eip = eip, .cs = USER_CS, .eflags = EFLAGS_RESERVED | EFLAGS_IF,
		.user_esp = user_esp, .user_ss = USER_DS, .eax = eax, .ebx = ebx,
	};
	struct switch_frame *sf = (struct switch_frame *)tf - 1;
	*sf = (struct switch_frame){ .ret = (uint32_t)arch_user_first };
	return (uint32_t)sf;
}

uint32_t arch_first_frame_kernel(uint8_t *kstack_top, void (*entry)(void))
{
	/* entry's own return address above the switch frame: never used (entry
	 * does not return), 0 ends a backtrace there. */
	uint32_t *top = (uint32_t *)kstack_top;
	*--top = 0;
	struct switch_frame *sf = (struct switch_frame *)top - 1;
	*sf = (struct switch_frame){ .ret = (uint32_t)entry };
	return (uint32_t)sf;
}
