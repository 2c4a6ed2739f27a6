/* include/arch/x86.h — the CPU instructions lull needs, as tiny inline functions.
 * Only arch code and drivers/ include this; kernel/time/ must not (it is
 * compiled on the host).  Spec: Intel SDM Vol. 2 for each instruction. */
#ifndef LULL_X86_H
#define LULL_X86_H

#include "compiler.h"

static inline void outb(uint16_t port, uint8_t v)  { __asm__ __volatile__("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ __volatile__("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ __volatile__("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)  { uint8_t v;  __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint16_t inw(uint16_t port) { uint16_t v; __asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

/* A write to the unused POST-code port takes ~1 us on real ISA buses: the
 * classic delay between two accesses to slow legacy chips (PIC, PIT). */
#define X86_IO_DELAY_PORT 0x80
static inline void io_wait(void) { outb(X86_IO_DELAY_PORT, 0); }

#define X86_EFLAGS_IF   (1u << 9)       /* interrupts enabled */
#define X86_EFLAGS_ID   (1u << 21)      /* writable iff CPUID exists */

static inline uint32_t read_eflags(void)
{
	uint32_t f;
	__asm__ __volatile__("pushfl; popl %0" : "=r"(f) :: "memory");
	return f;
}
static inline void cli(void) { __asm__ __volatile__("cli" ::: "memory"); }
static inline void sti(void) { __asm__ __volatile__("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ __volatile__("hlt" ::: "memory"); }
/* sti takes effect after the next instruction, so no interrupt can slip in
 * between the two: an interrupt that is pending wakes the hlt at once. */
static inline void sti_hlt(void) { __asm__ __volatile__("sti; hlt" ::: "memory"); }
/* Let any pending interrupt in, then turn interrupts off again: an
 * interrupt is taken after the instruction that follows STI (Intel SDM
 * vol. 2B, STI), so the NOP is where it lands. */
static inline void irq_window(void) { __asm__ __volatile__("sti; nop; cli" ::: "memory"); }

/* Save and disable interrupts; restore exactly what was there. */
static inline uint32_t irq_save(void) { uint32_t f = read_eflags(); cli(); return f; }
static inline void irq_restore(uint32_t f) { if (f & X86_EFLAGS_IF) sti(); }
static inline bool irqs_enabled(void) { return read_eflags() & X86_EFLAGS_IF; }

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}
static inline uint32_t read_cr0(void) { uint32_t v; __asm__ __volatile__("mov %%cr0, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr2(void) { uint32_t v; __asm__ __volatile__("mov %%cr2, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr3(void) { uint32_t v; __asm__ __volatile__("mov %%cr3, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr4(void) { uint32_t v; __asm__ __volatile__("mov %%cr4, %0" : "=r"(v)); return v; }
static inline void write_cr4(uint32_t v) { __asm__ __volatile__("mov %0, %%cr4" :: "r"(v) : "memory"); }
#define CR4_PSE                (1u << 4)    /* 4 MiB pages (SDM Vol. 3A, 2.5) */

/* Memory-mapped registers (LAPIC, HPET): always volatile, always 32-bit. */
static inline uint32_t mmio_read32(uintptr_t addr) { return *(volatile uint32_t *)addr; }
static inline void mmio_write32(uintptr_t addr, uint32_t v) { *(volatile uint32_t *)addr = v; }

/* CPU identification: kernel/arch/cpu.c fills this once at boot. */
struct cpu_info {
	bool has_cpuid;
	char vendor[13];
	uint32_t family, model, stepping;
	uint32_t max_leaf, max_ext_leaf;
	uint32_t feat_edx, feat_ecx;     /* CPUID.1 */
	uint32_t ext_feat_edx;           /* CPUID.80000007 (invariant TSC in bit 8) */
};
extern struct cpu_info cpu;

/* CPUID.1:EDX and ECX feature bits (SDM Vol. 2A, Table 3-10/3-11). */
#define CPUID_1_EDX_PSE        (1u << 3)
#define CPUID_1_EDX_TSC        (1u << 4)
#define CPUID_1_EDX_MSR        (1u << 5)
#define CPUID_1_EDX_APIC       (1u << 9)
#define CPUID_1_ECX_TSC_DEADLINE (1u << 24)
#define CPUID_8000_0007_EDX_INVARIANT_TSC (1u << 8)

static inline bool cpu_has_tsc(void) { return cpu.has_cpuid && (cpu.feat_edx & CPUID_1_EDX_TSC); }
/* The TSC, or 0 on a CPU without one. */
static inline uint64_t tsc_or_zero(void) { return cpu_has_tsc() ? rdtsc() : 0; }

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

void cpu_identify(void);

#endif
