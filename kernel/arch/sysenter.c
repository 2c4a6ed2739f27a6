/* kernel/arch/sysenter.c — the SYSENTER way into the kernel
 * (include/arch/sysenter.h; docs/tasks.md, "System calls").
 *
 * Spec: Intel SDM Vol. 2B, SYSENTER and SYSEXIT; Vol. 3A, 5.8.7 (the three
 * MSRs).  SYSENTER jumps to a fixed kernel address with CS from
 * IA32_SYSENTER_CS (SS is the next GDT entry: kernel code then data, as
 * kernel/arch/gdt.c lays them out) and ESP from IA32_SYSENTER_ESP, and
 * saves nothing of ring 3: the user's stub puts its ESP in EBP and its
 * return address is a fixed label (kernel/user/sysenter.c).  lull points
 * IA32_SYSENTER_ESP at this CPU's TSS.esp0 field, so the entry stub's
 * first instruction loads the current task's kernel stack from there
 * (tss_set_kernel_stack keeps it current at every switch): no MSR write
 * per switch.  The stub (boot/vectors.asm) then builds the frame `int
 * 0x80` would have, so one path serves both; the way back is IRET.
 *
 * Which path a program uses is its own choice: lull's programs call `int
 * 0x80` (include/user/syscall.h), and `spawn sysbench` measures both.
 */
#include "arch/sysenter.h"
#include "arch/trap.h"
#include "arch/x86.h"

#define MSR_IA32_SYSENTER_CS    0x174   /* SDM Vol. 4, Table 2-2 */
#define MSR_IA32_SYSENTER_ESP   0x175
#define MSR_IA32_SYSENTER_EIP   0x176
#define CPUID_1_EDX_SEP         (1u << 11)

extern char sysenter_entry[];           /* boot/vectors.asm */
extern int u_sysenter_ok;               /* kernel/user/sysenter.c: what programs read */

/* QUIRK: the Pentium Pro (family 6, model 1) sets CPUID's SEP bit but has
 * no SYSENTER: the SDM (Vol. 2B, SYSENTER) says to trust the bit only
 * from family 6, model 3, stepping 3 on.  QEMU's qemu32 is family 6,
 * model 3, stepping 3; its 486 and pentium models clear the bit. */
bool sysenter_supported(void)
{
	if (!cpu.has_cpuid || !(cpu.feat_edx & CPUID_1_EDX_SEP))
		return false;
	return !(cpu.family == 6 && cpu.model < 3 && cpu.stepping < 3);
}

void sysenter_init_cpu(unsigned index)
{
	if (!sysenter_supported())
		return;
	wrmsr(MSR_IA32_SYSENTER_CS, GDT_KERNEL_CODE);
	wrmsr(MSR_IA32_SYSENTER_ESP, (uint32_t)tss_esp0_field(index));
	wrmsr(MSR_IA32_SYSENTER_EIP, (uint32_t)sysenter_entry);
	u_sysenter_ok = 1;
}
