/* kernel/arch/gdt.c — the Global Descriptor Table: flat 4 GiB code and data
 * segments for the kernel (ring 0) and for tasks (ring 3), one data segment
 * per CPU whose base is that CPU's struct cpu (include/arch/smp.h), and one
 * task-state segment (TSS) per CPU.
 *
 * Spec: Intel SDM Vol. 3A, 3.4.5 (segment descriptors), 7.2 (the TSS).
 * lull uses no segmentation for protection (paging does that); the table
 * exists because protected mode requires one, and because we cannot trust
 * the loader's (the Multiboot spec, 3.2, says the GDTR "may be invalid").
 *
 * The order of the first four is the one SYSENTER/SYSEXIT need (SDM Vol.
 * 2B, SYSENTER: SS is the code selector + 8, the ring-3 code + 16, its
 * stack + 24), so a fast system call path can use them unchanged.
 *
 * The per-CPU segments are the one use of segmentation: each CPU loads its
 * own into FS, so this_cpu() is a single load from %fs:0 (as Linux on i386
 * did), and no CPU needs to know its number to find its data.  A task may
 * load anything into FS, so an interrupt from ring 3 reloads it from the
 * task register, which only the kernel sets (boot/vectors.asm).
 *
 * The TSS is what the CPU reads when an interrupt arrives in ring 3: the
 * kernel stack to switch to (SS0:ESP0), the current task's, set at every
 * switch (tss_set_kernel_stack).  Its I/O bitmap is empty (its offset past
 * the segment's end), so a task's IN or OUT faults (SDM Vol. 1, 19.5.2).
 */
#include "arch/smp.h"
#include "arch/trap.h"

/* Access byte: present, the ring, code/data, and the type. */
#define GDT_ACCESS_CODE 0x9A    /* P=1 DPL=0 S=1 type=execute/read */
#define GDT_ACCESS_DATA 0x92    /* P=1 DPL=0 S=1 type=read/write */
#define GDT_ACCESS_USER_CODE 0xFA       /* the same, DPL=3 */
#define GDT_ACCESS_USER_DATA 0xF2
#define GDT_ACCESS_TSS  0x89    /* P=1 DPL=0 S=0 type=32-bit TSS, available (SDM Table 3-2) */
/* Flags nibble: 4 KiB granularity, 32-bit default operand size. */
#define GDT_FLAGS_4K_32 0xC

struct gdt_entry {
	uint16_t limit_lo, base_lo;
	uint8_t base_mid, access, limit_hi_flags, base_hi;
} __packed;
_Static_assert(sizeof(struct gdt_entry) == 8, "SDM Figure 3-8");
_Static_assert(offsetof(struct gdt_entry, base_mid) == 4, "SDM Figure 3-8: base 23:16 in byte 4");
_Static_assert(offsetof(struct gdt_entry, access) == 5, "SDM Figure 3-8: P, DPL, S, type in byte 5");
_Static_assert(offsetof(struct gdt_entry, limit_hi_flags) == 6, "SDM Figure 3-8: G, D/B, limit 19:16");
_Static_assert(offsetof(struct gdt_entry, base_hi) == 7, "SDM Figure 3-8: base 31:24 in byte 7");

#define FLAT(access) { 0xFFFF, 0, 0, (access), (GDT_FLAGS_4K_32 << 4) | 0xF, 0 }

static struct gdt_entry gdt[GDT_TSS_FIRST + NR_CPUS] = {
	{ 0 },                          /* the null descriptor */
	FLAT(GDT_ACCESS_CODE),          /* 0x08 GDT_KERNEL_CODE */
	FLAT(GDT_ACCESS_DATA),          /* 0x10 GDT_KERNEL_DATA */
	FLAT(GDT_ACCESS_USER_CODE),     /* 0x18 GDT_USER_CODE (RPL 3: 0x1B) */
	FLAT(GDT_ACCESS_USER_DATA),     /* 0x20 GDT_USER_DATA (RPL 3: 0x23) */
	/* then one data segment per CPU and one TSS per CPU, filled in by
	 * gdt_load_cpu */
};
_Static_assert(GDT_KERNEL_DATA == GDT_KERNEL_CODE + 8 && GDT_USER_CODE == GDT_KERNEL_CODE + 16 &&
               GDT_USER_DATA == GDT_KERNEL_CODE + 24, "SDM Vol. 2B, SYSENTER/SYSEXIT: the order");

/* The 32-bit TSS (SDM Vol. 3A, Figure 7-2); lull switches tasks in
 * software, so only the ring-0 stack and the I/O map offset are used. */
struct tss {
	uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2;
	uint32_t cr3, eip, eflags, eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint32_t es, cs, ss, ds, fs, gs, ldt;
	uint16_t trap, iomap_base;
} __packed;
_Static_assert(sizeof(struct tss) == 104, "SDM Figure 7-2: 104 bytes");
_Static_assert(offsetof(struct tss, esp0) == 4 && offsetof(struct tss, ss0) == 8, "SDM Figure 7-2");
_Static_assert(offsetof(struct tss, iomap_base) == 102, "SDM Figure 7-2: I/O map base at 102");

static struct tss tss[NR_CPUS] __attribute__((aligned(8)));   /* esp0 aligned: SYSENTER loads it */

/* What LGDT loads: a 16-bit limit, then a 32-bit linear base address
 * (SDM Vol. 3A, 2.4.1, Figure 2-6). */
struct __packed gdt_ptr { uint16_t limit; uint32_t base; };
_Static_assert(sizeof(struct gdt_ptr) == 6 && offsetof(struct gdt_ptr, base) == 2, "SDM Figure 2-6");

static void gdt_load(uint16_t fs)
{
	struct gdt_ptr p = { sizeof(gdt) - 1, (uint32_t)gdt };
	/* Load the table, then reload every segment register: CS needs a far
	 * jump, the others a plain move. */
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"ljmp %1, $1f\n"
		"1:\n\t"
		"mov %2, %%ax\n\t"
		"mov %%ax, %%ds\n\t"
		"mov %%ax, %%es\n\t"
		"mov %%ax, %%gs\n\t"
		"mov %%ax, %%ss\n\t"
		"mov %3, %%fs\n\t"
		:: "m"(p), "i"(GDT_KERNEL_CODE), "i"(GDT_KERNEL_DATA), "r"(fs) : "eax", "memory");
}

void gdt_init(void)
{
	gdt_load(GDT_KERNEL_DATA);
}

static struct gdt_entry with_base(struct gdt_entry e, uint32_t b)
{
	e.base_lo = (uint16_t)b;
	e.base_mid = (uint8_t)(b >> 16);
	e.base_hi = (uint8_t)(b >> 24);
	return e;
}

void gdt_load_cpu(unsigned index, void *base)
{
	gdt[GDT_PERCPU_FIRST + index] = with_base((struct gdt_entry)FLAT(GDT_ACCESS_DATA), (uint32_t)base);
	gdt_load(GDT_PERCPU_SELECTOR(index));
	/* Its TSS: byte granularity, limit = size - 1; no I/O bitmap. */
	tss[index] = (struct tss){ .ss0 = GDT_KERNEL_DATA, .iomap_base = sizeof(struct tss) };
	struct gdt_entry t = { sizeof(struct tss) - 1, 0, 0, GDT_ACCESS_TSS, 0, 0 };
	gdt[GDT_TSS_FIRST + index] = with_base(t, (uint32_t)&tss[index]);
	__asm__ __volatile__("ltr %0" :: "r"((uint16_t)GDT_TSS_SELECTOR(index)));
}

void tss_set_kernel_stack(unsigned index, uint32_t esp0)
{
	tss[index].esp0 = esp0;
}

/* esp0 sits at offset 4 of a TSS aligned as the array is (SDM Figure 7-2). */
uint32_t *tss_esp0_field(unsigned index) { return (uint32_t *)((uint8_t *)&tss[index] + offsetof(struct tss, esp0)); }

void gdt_pointer(uint16_t *limit, uint32_t *base)
{
	*limit = sizeof(gdt) - 1;
	*base = (uint32_t)gdt;
}
