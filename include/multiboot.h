/* include/multiboot.h — the information block a Multiboot v1 loader hands
 * us.  Spec: Multiboot Specification 0.6.96, section 3.3. */
#ifndef LULL_MULTIBOOT_H
#define LULL_MULTIBOOT_H

#include "compiler.h"

#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002   /* in EAX at entry (3.2) */

#define MULTIBOOT_INFO_MEMORY      (1u << 0)    /* mem_lower/mem_upper valid */
#define MULTIBOOT_INFO_CMDLINE     (1u << 2)
#define MULTIBOOT_INFO_MODS        (1u << 3)
#define MULTIBOOT_INFO_MEM_MAP     (1u << 6)
#define MULTIBOOT_INFO_LOADER_NAME (1u << 9)

struct multiboot_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;          /* KiB below 1 MiB / above 1 MiB */
	uint32_t boot_device;
	uint32_t cmdline;                       /* physical address of a C string */
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
} __packed;
/* Offsets from the table in 3.3 ("Boot information format"); the fields
 * after boot_loader_name (APM, VBE, framebuffer) are not read. */
/* Shaped like struct trapframe's checks (include/arch/trap.h): one offset a line. */
_Static_assert(offsetof(struct multiboot_info, mem_lower) == 4, "Multiboot 3.3");
_Static_assert(offsetof(struct multiboot_info, cmdline) == 16, "Multiboot 3.3");
_Static_assert(offsetof(struct multiboot_info, syms) == 28, "Multiboot 3.3");
_Static_assert(offsetof(struct multiboot_info, mmap_length) == 44, "Multiboot 3.3");
_Static_assert(offsetof(struct multiboot_info, mmap_addr) == 48, "Multiboot 3.3");
_Static_assert(offsetof(struct multiboot_info, boot_loader_name) == 64, "Multiboot 3.3");
_Static_assert(sizeof(struct multiboot_info) == 68, "Multiboot 3.3: up to apm_table");

/* One memory-map entry; `size` does not count itself (3.3, mmap_*). */
struct multiboot_mmap_entry {
	uint32_t size;
	uint64_t addr, len;
	uint32_t type;                          /* 1 = usable RAM */
} __packed;
/* The spec places size at offset -4 and base_addr at 0; counted from size: */
_Static_assert(offsetof(struct multiboot_mmap_entry, addr) == 4, "Multiboot 3.3: base_addr");
_Static_assert(offsetof(struct multiboot_mmap_entry, len) == 12, "Multiboot 3.3: length");
_Static_assert(offsetof(struct multiboot_mmap_entry, type) == 20, "Multiboot 3.3: type");
_Static_assert(sizeof(struct multiboot_mmap_entry) == 24, "Multiboot 3.3: size (20) + 4");

#define MULTIBOOT_MEMORY_AVAILABLE 1
#define MULTIBOOT_MMAP_ENTRY_MIN  20    /* `size` of an entry with every field (3.3) */

/* One module (3.3, mods_*): where it lies, and its string. */
struct multiboot_module {
	uint32_t mod_start, mod_end;
	uint32_t string;
	uint32_t reserved;
} __packed;
_Static_assert(sizeof(struct multiboot_module) == 16, "Multiboot 3.3: mods_addr entries");

/* How multiboot_parse reads the loader's memory: a pointer to `len`
 * readable bytes at physical address `phys`, or NULL if they are out of
 * reach.  The kernel's is the identity map (kernel/main.c); the host
 * tests' hand out a copy of a fake memory. */
typedef const void *(*multiboot_map_fn)(uint32_t phys, uint32_t len);

#define MULTIBOOT_STRING_MAX   4096     /* a longer command line or name is garbage */
#define MULTIBOOT_MMAP_MAX       32     /* memory-map entries kept; BIOSes give ~10 */
#define MULTIBOOT_MODS_MAX      256     /* a longer module list is garbage */

/* What only a Multiboot2 loader says (include/multiboot2.h), as flags of
 * lull's own in struct boot_info, above the Multiboot 1 bits (0-12). */
#define BOOT_INFO_ACPI_RSDP    (1u << 24)       /* rsdp[] holds the loader's copy */
#define BOOT_INFO_FRAMEBUFFER  (1u << 25)       /* fb describes a linear framebuffer */
#define BOOT_INFO_EFI          (1u << 26)       /* efi_system_table is the firmware's */

#define BOOT_RSDP_MAX          36       /* an ACPI 2.0 RSDP (ACPI 6.5, 5.2.5.3) */

/* A linear framebuffer the loader set up (Multiboot2 3.6.12). */
#define BOOT_FB_INDEXED         0       /* a palette; lull draws no such screen */
#define BOOT_FB_RGB             1       /* direct colour: the fields below */
#define BOOT_FB_EGA_TEXT        2       /* VGA text mode, described as one */
struct boot_framebuffer {
	uint64_t addr;
	uint32_t pitch, width, height;          /* bytes a row; pixels (characters for EGA text) */
	uint8_t bpp;
	uint8_t type;                           /* BOOT_FB_* */
	/* BOOT_FB_RGB only: where each colour's bits sit in a pixel. */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

/* One memory-map entry as kept (the loader's `size` field checked and gone). */
struct boot_mmap_entry {
	uint64_t addr, len;
	uint32_t type;                          /* MULTIBOOT_MEMORY_* */
};

/* What the loader told us, checked: every pointer leads to memory that is
 * there, every string ends within MULTIBOOT_STRING_MAX, every memory-map
 * entry lies inside the map.  A part that fails a check is dropped (its
 * flag cleared) with one "multiboot: ..." line.  Read by the shell's `mem`
 * and `cmdline` commands and by kernel/smp_boot.c. */
struct boot_info {
	unsigned protocol;                      /* 1 or 2: which Multiboot */
	uint32_t info_addr, info_size;          /* the loader's block itself */
	uint32_t flags;                         /* MULTIBOOT_INFO_* that passed */
	uint32_t mem_lower, mem_upper;          /* KiB below 1 MiB / above 1 MiB */
	const char *cmdline;                    /* the command line, or "" */
	uint32_t cmdline_addr, cmdline_size;    /* where, and bytes with its NUL */
	uint32_t loader_name_addr, loader_name_size;
	uint32_t mods_count;
	uint32_t mmap_addr, mmap_length;        /* the loader's map, for smp.c */
	unsigned mmap_count;
	struct boot_mmap_entry mmap[MULTIBOOT_MMAP_MAX];
	/* Multiboot2 only (BOOT_INFO_* flags): */
	uint8_t rsdp[BOOT_RSDP_MAX];            /* the loader's copy of the RSDP */
	uint32_t rsdp_len;                      /* 20 (ACPI 1.0) or 36 */
	struct boot_framebuffer fb;
	uint64_t efi_system_table;              /* physical address */
	unsigned efi_bits;                      /* 32 or 64: which EFI tag gave it */
	unsigned warnings;                      /* parts dropped */
};

/* Check the loader's block `mbi` (NULL: none) through `map` and fill in
 * `out` (kernel/lib/multiboot.c).  0, or -EINVAL if anything was dropped. */
int multiboot_parse(const struct multiboot_info *mbi, uint32_t info_addr,
                    multiboot_map_fn map, struct boot_info *out);

/* The memory-map entry that holds all of [addr, addr + len), or NULL if
 * none does (or there is no map).  Any type: usable, reserved, ACPI. */
const struct boot_mmap_entry *boot_memory_entry(const struct boot_info *bi, uint64_t addr,
                                                uint64_t len);

extern struct boot_info boot_info;

#endif
