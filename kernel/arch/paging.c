/* kernel/arch/paging.c — a two-level i386 page table that maps every address to
 * itself.
 *
 * Spec: Intel SDM Vol. 3A, 4.3 (32-bit paging): CR3 -> page directory (1024
 * entries, 4 MiB each) -> page table (1024 entries, 4 KiB each).  Page
 * tables come from a fixed pool in .bss.
 *
 * RAM is mapped with 4 MiB pages where the CPU has PSE (SDM 4.3, a
 * directory entry with PS set maps 4 MiB itself; CPUID.1:EDX[3], the
 * Pentium on): one entry per 4 MiB instead of a table of 1024.  Filling
 * 32 tables for 128 MiB was a noticeable share of the boot.  The first
 * 4 MiB keep a table (the null page is unmapped from it), and so does
 * RAM's last part if it does not fill 4 MiB.  A 486 has no PSE and gets
 * tables throughout.
 */
#include "arch/paging.h"
#include "kprintf.h"
#include "panic.h"
#include "arch/x86.h"

#define PTE_PRESENT     (1u << 0)
#define PTE_WRITABLE    (1u << 1)
#define PTE_USER        (1u << 2)   /* U/S: ring 3 may use it (SDM 4.6.1) */
#define PTE_PWT         (1u << 3)   /* write-through */
#define PTE_PCD         (1u << 4)   /* cache disable: device registers */
#define PDE_LARGE       (1u << 7)   /* PS: this entry maps 4 MiB (CR4.PSE) */
#define PTE_ADDR_MASK   0xFFFFF000u
#define CR0_PG          (1u << 31)
#define ENTRIES         1024
#define PDE_SPAN        (ENTRIES * PAGE_SIZE)   /* 4 MiB per directory entry */

/* 64 tables map 256 MiB of RAM; 16 more cover device windows, ACPI
 * tables and a framebuffer (8 of them map a 3840x2160 one at 32 bpp).  lull needs far less RAM than that; a bigger machine just has RAM
 * lull never touches. */
#define PAGING_RAM_TABLES   64
#define PAGING_EXTRA_TABLES 16
#define PAGING_MAX_RAM      ((uint64_t)PAGING_RAM_TABLES * PDE_SPAN)

static uint32_t page_dir[ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static uint32_t tables[PAGING_RAM_TABLES + PAGING_EXTRA_TABLES][ENTRIES]
	__attribute__((aligned(PAGE_SIZE)));
static unsigned tables_used;
static uint32_t ram_mapped;
static bool enabled;

/* addr's page table, made if need be; NULL if the pool is used up or a
 * 4 MiB page maps addr (it maps it to itself already). */
static uint32_t *table_for(uint32_t addr)
{
	uint32_t *pde = &page_dir[addr / PDE_SPAN];
	if (*pde & PDE_LARGE)
		return NULL;
	if (!(*pde & PTE_PRESENT)) {
		if (tables_used == ARRAY_SIZE(tables))
			return NULL;
		/* Zero already: .bss, which the loader clears (Multiboot 3.1.3,
		 * bss_end_addr; ELF's memory size past its file size), and each
		 * table is handed out once. */
		uint32_t *t = tables[tables_used++];
		*pde = (uint32_t)t | PTE_PRESENT | PTE_WRITABLE;
	}
	return (uint32_t *)(*pde & PTE_ADDR_MASK);
}

/* One page table at a time: its entries are filled in a tight loop, and
 * the directory is looked at once per 4 MiB, not once per page (mapping
 * 128 MiB page by page, a lookup for each of its 32,768 pages, was a
 * large share of the boot). */
static bool map_range(uint32_t phys, uint32_t len, uint32_t flags)
{
	uint64_t a = phys & PTE_ADDR_MASK;
	uint64_t end = (uint64_t)phys + len;
	while (a < end) {
		uint64_t table_end = MIN(end, (a / PDE_SPAN + 1) * PDE_SPAN);
		if (page_dir[a / PDE_SPAN] & PDE_LARGE) {
			a = table_end;          /* RAM, mapped whole */
			continue;
		}
		uint32_t *t = table_for((uint32_t)a);
		if (!t)
			return false;
		uint32_t pte = (uint32_t)a | flags | PTE_PRESENT | PTE_WRITABLE;
		for (unsigned i = ((uint32_t)a / PAGE_SIZE) % ENTRIES; a < table_end; i++, a += PAGE_SIZE) {
			t[i] = pte;
			pte += PAGE_SIZE;
		}
	}
	/* New mappings of pages that were not present need no TLB flush: the
	 * CPU never caches a not-present translation (SDM 4.10.2.3). */
	return true;
}

void paging_init(uint64_t ram_bytes)
{
	if (ram_bytes > PAGING_MAX_RAM)
		ram_bytes = PAGING_MAX_RAM;
	uint32_t large_end = 0;
	if (cpu.feat_edx & CPUID_1_EDX_PSE) {
		write_cr4(read_cr4() | CR4_PSE);
		large_end = (uint32_t)(ram_bytes / PDE_SPAN * PDE_SPAN);
		for (uint32_t a = PDE_SPAN; a < large_end; a += PDE_SPAN)
			page_dir[a / PDE_SPAN] = a | PDE_LARGE | PTE_PRESENT | PTE_WRITABLE;
	}
	/* Tables: the first 4 MiB, and the RAM above that no 4 MiB page maps. */
	uint32_t first = (uint32_t)MIN(ram_bytes, (uint64_t)PDE_SPAN);
	uint32_t rest = MAX(large_end, first);
	if (!map_range(0, first, 0) || !map_range(rest, (uint32_t)ram_bytes - rest, 0))
		panic("paging_init: page-table pool too small for RAM");
	ram_mapped = (uint32_t)ram_bytes;
	__asm__ __volatile__("mov %0, %%cr3" :: "r"(page_dir) : "memory");
	__asm__ __volatile__("mov %%cr0, %%eax; or %0, %%eax; mov %%eax, %%cr0"
	                     :: "i"(CR0_PG) : "eax", "memory");
	enabled = true;
}

uint32_t paging_ram_mapped(void) { return ram_mapped; }

void *paging_map_mmio(uint32_t phys, uint32_t len)
{
	return map_range(phys, len, PTE_PCD | PTE_PWT) ? (void *)phys : NULL;
}

void *paging_map_ram(uint32_t phys, uint32_t len)
{
	if ((uint64_t)phys + len <= ram_mapped)
		return (void *)phys;
	return map_range(phys, len, 0) ? (void *)phys : NULL;
}

void paging_unmap_null_page(void)
{
	uint32_t *t = table_for(0);
	t[0] = 0;
	if (enabled)
		__asm__ __volatile__("invlpg (%0)" :: "r"(0) : "memory");
}

/* Page-level protection takes the U/S bit of the directory entry and of
 * the table entry together (SDM 4.6.1): the directory entry gets it, and
 * only the pages asked for do, so everything else in that 4 MiB stays the
 * kernel's. */
bool paging_allow_user(uint32_t start, uint32_t len)
{
	for (uint32_t a = start & PTE_ADDR_MASK; a < start + len; a += PAGE_SIZE) {
		uint32_t *pde = &page_dir[a / PDE_SPAN];
		if ((*pde & PDE_LARGE) || !(*pde & PTE_PRESENT))
			return false;
		*pde |= PTE_USER;
		uint32_t *t = (uint32_t *)(*pde & PTE_ADDR_MASK);
		t[(a / PAGE_SIZE) % ENTRIES] |= PTE_USER;
		if (enabled)
			__asm__ __volatile__("invlpg (%0)" :: "r"(a) : "memory");
	}
	return true;
}
