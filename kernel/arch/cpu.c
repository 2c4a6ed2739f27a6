/* kernel/arch/cpu.c — what CPU is this?  CPUID, where it exists.
 *
 * Spec: Intel SDM Vol. 2A, CPUID; and Intel AP-485 "Processor
 * Identification": CPUID exists iff software can flip EFLAGS.ID (bit 21).
 * Early 486s have no CPUID at all — `-machine isapc -cpu 486` is such a
 * machine in spirit, so every feature check starts at has_cpuid.
 */
#include "arch/x86.h"
#include "kstring.h"

struct cpu_info cpu;

static bool cpuid_supported(void)
{
	uint32_t before = read_eflags();
	__asm__ __volatile__("pushfl; xorl %0, (%%esp); popfl" :: "r"(X86_EFLAGS_ID) : "memory", "cc");
	uint32_t after = read_eflags();
	__asm__ __volatile__("pushl %0; popfl" :: "r"(before) : "memory", "cc");
	return ((before ^ after) & X86_EFLAGS_ID) != 0;
}

void cpu_identify(void)
{
	uint32_t a, b, c, d;
	memset(&cpu, 0, sizeof(cpu));
	cpu.has_cpuid = cpuid_supported();
	if (!cpu.has_cpuid) {
		memcpy(cpu.vendor, "unknown", 8);
		return;
	}
	cpuid(0, 0, &a, &b, &c, &d);
	cpu.max_leaf = a;
	memcpy(cpu.vendor + 0, &b, 4);      /* "GenuineIntel" is EBX EDX ECX */
	memcpy(cpu.vendor + 4, &d, 4);
	memcpy(cpu.vendor + 8, &c, 4);
	if (cpu.max_leaf >= 1) {
		cpuid(1, 0, &a, &b, &c, &d);
		cpu.family = (a >> 8) & 0xF;
		cpu.model = (a >> 4) & 0xF;
		cpu.stepping = a & 0xF;
		if (cpu.family == 0xF)
			cpu.family += (a >> 20) & 0xFF;
		if (cpu.family >= 6)
			cpu.model |= ((a >> 16) & 0xF) << 4;
		cpu.feat_edx = d;
		cpu.feat_ecx = c;
	}
	cpuid(0x80000000u, 0, &a, &b, &c, &d);
	/* Without extended leaves, CPUs echo a basic leaf: treat as none. */
	cpu.max_ext_leaf = (a & 0x80000000u) ? a : 0;
	if (cpu.max_ext_leaf >= 0x80000007u) {
		cpuid(0x80000007u, 0, &a, &b, &c, &d);
		cpu.ext_feat_edx = d;
	}
}
