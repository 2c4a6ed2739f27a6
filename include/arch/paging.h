/* include/arch/paging.h — identity-mapped paging (virtual == physical).
 *
 * lull turns paging on for one reason: so a stray pointer faults instead of
 * scribbling.  RAM and the device windows drivers ask for are mapped at
 * their own addresses; page 0 is left unmapped after boot so a NULL
 * dereference stops with a #PF report. */
#ifndef LULL_PAGING_H
#define LULL_PAGING_H

#include "compiler.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE (1u << PAGE_SHIFT)

/* Map RAM [0, ram_bytes) (capped, see paging.c) and turn paging on. */
void paging_init(uint64_t ram_bytes);
/* Map a device register window uncached; returns its address (identity).
 * NULL if the page-table pool is exhausted. */
void *paging_map_mmio(uint32_t phys, uint32_t len);
/* Map ordinary memory outside RAM's mapped range (ACPI tables). */
void *paging_map_ram(uint32_t phys, uint32_t len);
/* Unmap page 0: NULL pointers fault from now on. */
void paging_unmap_null_page(void);
/* Let ring 3 use [start, start + len) (page-aligned, mapped by a page table,
 * not a 4 MiB page): its pages get the U/S bit, read and write.  false if
 * a 4 MiB page maps part of it. */
bool paging_allow_user(uint32_t start, uint32_t len);
/* Bytes of RAM mapped. */
uint32_t paging_ram_mapped(void);

#endif
