/* include/arch/sysenter.h — SYSENTER, the fast way from ring 3 into the
 * kernel, where the CPU has it (kernel/arch/sysenter.c). */
#ifndef LULL_ARCH_SYSENTER_H
#define LULL_ARCH_SYSENTER_H

#include "compiler.h"

/* Whether this CPU has SYSENTER (CPUID's SEP bit, less the Pentium Pro's). */
bool sysenter_supported(void);
/* This CPU's three SYSENTER MSRs, once its TSS is loaded (gdt_load_cpu);
 * nothing on a CPU without it. */
void sysenter_init_cpu(unsigned index);

#endif
