/* kernel/arch/gdt.c — the Global Descriptor Table: one flat 4 GiB code segment
 * and one flat data segment, both ring 0, and one data segment per CPU
 * whose base is that CPU's struct cpu (include/arch/smp.h).
 *
 * Spec: Intel SDM Vol. 3A, 3.4.5 (segment descriptors).  lull uses no
 * segmentation and no user mode; the table exists because protected mode
 * requires one, and because we cannot trust the loader's (the Multiboot spec,
 * 3.2, says the GDTR "may be invalid").  The per-CPU segments are the one
 * use of segmentation: each CPU loads its own into FS, so this_cpu() is a
 * single load from %fs:0 (as Linux on i386 did), and no CPU needs to know
 * its number to find its data.
 */
#include "arch/smp.h"
#include "arch/trap.h"

#define GDT_KERNEL_CODE 0x08    /* selectors: index * 8, TI=0, RPL=0 */
#define GDT_KERNEL_DATA 0x10

/* Access byte: present, ring 0, code/data, and the type. */
#define GDT_ACCESS_CODE 0x9A    /* P=1 DPL=0 S=1 type=execute/read */
#define GDT_ACCESS_DATA 0x92    /* P=1 DPL=0 S=1 type=read/write */
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

#define GDT_PERCPU_FIRST 3      /* index of CPU 0's segment: selector 0x18 */

static struct gdt_entry gdt[GDT_PERCPU_FIRST + NR_CPUS] = {
	{ 0 },                          /* the null descriptor */
	FLAT(GDT_ACCESS_CODE),          /* 0x08 */
	FLAT(GDT_ACCESS_DATA),          /* 0x10 */
	/* then one per CPU, filled in by gdt_load_cpu */
};

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

void gdt_load_cpu(unsigned index, void *base)
{
	uint32_t b = (uint32_t)base;
	struct gdt_entry e = FLAT(GDT_ACCESS_DATA);
	e.base_lo = (uint16_t)b;
	e.base_mid = (uint8_t)(b >> 16);
	e.base_hi = (uint8_t)(b >> 24);
	gdt[GDT_PERCPU_FIRST + index] = e;
	gdt_load((uint16_t)((GDT_PERCPU_FIRST + index) * sizeof(struct gdt_entry)));
}

void gdt_pointer(uint16_t *limit, uint32_t *base)
{
	*limit = sizeof(gdt) - 1;
	*base = (uint32_t)gdt;
}
