/* kernel/user/sysenter.c — a system call by SYSENTER, from ring 3
 * (kernel/arch/sysenter.c has the kernel's side).
 *
 * SYSENTER saves neither the stack nor the return address, so this stub
 * keeps both where the kernel knows to find them: its ESP in EBP, and its
 * return at u_sysenter_return, where the kernel's IRET comes back.  The
 * arguments are in the registers `int 0x80` takes them in (EAX the
 * number, then EBX, ECX, EDX, ESI, EDI).
 *
 *   int32_t u_sysenter(uint32_t nr, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e);
 */
#include "ulib.h"

int u_sysenter_ok;              /* set by the kernel on a CPU that has SYSENTER */

__asm__(
	".text\n"
	".globl u_sysenter\n"
	".globl u_sysenter_return\n"
	"u_sysenter:\n"
	"	push %ebp\n"
	"	push %ebx\n"
	"	push %esi\n"
	"	push %edi\n"
	"	mov 20(%esp), %eax\n"           /* the number, then a..e: cdecl, above the 4 saved */
	"	mov 24(%esp), %ebx\n"
	"	mov 28(%esp), %ecx\n"
	"	mov 32(%esp), %edx\n"
	"	mov 36(%esp), %esi\n"
	"	mov 40(%esp), %edi\n"
	"	mov %esp, %ebp\n"
	"	sysenter\n"
	"u_sysenter_return:\n"
	"	pop %edi\n"
	"	pop %esi\n"
	"	pop %ebx\n"
	"	pop %ebp\n"
	"	ret\n");
