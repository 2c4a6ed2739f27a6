/* include/multiboot2.h — the information a Multiboot2 loader (GRUB's
 * `multiboot2` command, the one that works under UEFI too) hands over.
 * Spec: Multiboot2 Specification version 2.0, section 3.6 ("Boot
 * information format").  kernel/lib/multiboot2.c checks it into the same
 * struct boot_info that a Multiboot 1 block fills (include/multiboot.h).
 *
 * The block is a list of tags: an 8-byte header (total_size, reserved),
 * then tags, each {u32 type, u32 size, payload}, each starting on an
 * 8-byte boundary (3.6.1), ended by a tag of type 0 and size 8.  A tag's
 * size counts its header and payload, not the padding after it.
 */
#ifndef LULL_MULTIBOOT2_H
#define LULL_MULTIBOOT2_H

#include "compiler.h"
#include "multiboot.h"

#define MULTIBOOT2_BOOTLOADER_MAGIC 0x36D76289  /* in EAX at entry (3.3) */

/* Tag types (3.6). */
#define MB2_TAG_END             0
#define MB2_TAG_CMDLINE         1
#define MB2_TAG_LOADER_NAME     2
#define MB2_TAG_MODULE          3
#define MB2_TAG_BASIC_MEMINFO   4
#define MB2_TAG_MMAP            6
#define MB2_TAG_FRAMEBUFFER     8
#define MB2_TAG_EFI32           11
#define MB2_TAG_EFI64           12
#define MB2_TAG_ACPI_OLD        14      /* a copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW        15      /* a copy of the ACPI 2.0+ RSDP */

#define MB2_INFO_HEADER_LEN     8       /* total_size, reserved */
#define MB2_TAG_HEADER_LEN      8       /* type, size */
#define MB2_TAG_ALIGN           8       /* every tag starts on it (3.6.1) */
/* A block larger than this is garbage: GRUB's, with an EFI memory map of a
 * few hundred entries, is a few KiB. */
#define MB2_INFO_MAX            (1u << 20)

/* Payload sizes past the tag header, for the tags lull reads (3.6.x). */
#define MB2_MEMINFO_LEN         8       /* mem_lower, mem_upper */
#define MB2_MMAP_HEADER_LEN     8       /* entry_size, entry_version */
#define MB2_MMAP_ENTRY_MIN      24      /* base_addr, length, type, reserved */
#define MB2_FRAMEBUFFER_LEN     24      /* addr(8) pitch width height(4 each) bpp type(1) reserved(2) */
#define MB2_FRAMEBUFFER_RGB_LEN 30      /* ... then position and size of red, green, blue (1 each) */
#define MB2_EFI32_LEN           4
#define MB2_EFI64_LEN           8
#define ACPI_RSDP_V1_LEN        20      /* ACPI 6.5, 5.2.5.3: up to RsdtAddress */
#define ACPI_RSDP_V2_LEN        36      /* ... up to the reserved bytes */

/* Check the Multiboot2 block at physical `info_addr`, read through `map`,
 * and fill in `out` (kernel/lib/multiboot2.c).  Unknown tags are skipped,
 * as the spec asks; a malformed tag ends the walk with one
 * "multiboot2: ..." line and what came before it is kept.  0, or -EINVAL
 * if anything was dropped or the block is unusable. */
int multiboot2_parse(uint32_t info_addr, multiboot_map_fn map, struct boot_info *out);

#endif
