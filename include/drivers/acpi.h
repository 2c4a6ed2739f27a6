/* include/drivers/acpi.h — what lull reads from the ACPI tables
 * (drivers/platform/acpi_tables.c, acpi_sdt.c, acpi_decode.c; the writes it
 * makes through them, drivers/platform/acpi.c).
 *
 * Spec: ACPI 6.5, chapter 5.2 (RSDP, RSDT/XSDT, FADT, MADT) and the IA-PC
 * HPET specification 1.0a, 3.2.4 (the HPET table).  Only the fields lull
 * uses are kept; everything else stays in the tables. */
#ifndef LULL_ACPI_H
#define LULL_ACPI_H

#include "compiler.h"

#define ACPI_MAX_CPUS 32                /* APIC IDs kept from the MADT */

struct acpi_info {
	bool present;                   /* a valid RSDP and RSDT/XSDT were found */
	uint8_t revision;               /* RSDP revision: 0 = ACPI 1.0, 2+ = XSDT */
	char oem_id[7];                 /* the RSDP's OEM id, e.g. "BOCHS" */

	/* FADT (5.2.9) */
	bool has_fadt;
	uint8_t fadt_revision;          /* 1 = ACPI 1.0; 3 and up = ACPI 2.0+ */
	uint16_t pm_timer_port;         /* X_PM_TMR_BLK or PM_TMR_BLK (I/O), 0 if none */
	bool pm_timer_32bit;            /* TMR_VAL_EXT flag: 32-bit, else 24-bit */
	uint16_t pm1a_cnt_port, pm1b_cnt_port;  /* for S5 */
	bool s5_valid;                  /* \_S5 found in the DSDT */
	uint8_t s5_slp_typa, s5_slp_typb;
	bool reset_valid;               /* RESET_REG_SUP set and RESET_REG filled in
	                                   (any space; acpi_reset uses I/O only) */
	uint8_t reset_space;            /* GAS address space id: 0 memory, 1 I/O */
	uint64_t reset_addr;
	uint8_t reset_value;
	uint16_t boot_arch;             /* IAPC_BOOT_ARCH (FADT revision 2+, else 0):
	                                   ACPI_BOOT_* */
	uint8_t century_reg;            /* CENTURY: CMOS index of the RTC's century
	                                   byte, 0 if the RTC has none */

	/* HPET table */
	bool has_hpet;
	uint64_t hpet_base;             /* physical address of the register block */
	uint16_t hpet_min_tick;         /* smallest period (in counter ticks) the
	                                   firmware promises periodic mode handles */

	/* MADT (5.2.12) */
	bool has_madt;
	uint32_t lapic_base;            /* local APIC address */
	unsigned cpu_count;             /* enabled processor local APICs */
	uint8_t cpu_apic_id[ACPI_MAX_CPUS]; /* the first ACPI_MAX_CPUS of their IDs,
	                                   in MADT order (the boot CPU's among them) */
	bool pcat_compat;               /* dual 8259s present as well */
	uint32_t ioapic_base;           /* first I/O APIC, 0 if none */
	uint32_t irq0_gsi;              /* ISA IRQ0 as a GSI after overrides (QEMU: 2);
	                                   0 when no override says otherwise */
};

#define ACPI_FADT_REV_BOOT_ARCH  2          /* FADT revisions before this had
                                               IAPC_BOOT_ARCH reserved */
#define ACPI_BOOT_LEGACY_DEVICES (1u << 0)  /* ISA devices: RTC, PIT, ... */
#define ACPI_BOOT_8042           (1u << 1)  /* a PS/2 keyboard controller */

/* Generic Address Structure address spaces (ACPI 6.5, 5.2.3.2). */
#define ACPI_SPACE_MEMORY   0   /* system memory (MMIO) */
#define ACPI_SPACE_IO       1   /* system I/O ports */

#define ACPI_SLP_TYP_MAX    7   /* SLP_TYPx is 3 bits of PM1 control (4.8.3.2.1) */
#define ACPI_HPET_BLOCK_LEN 1024 /* the HPET's register space (HPET spec 1.0a, 2.3.1) */

extern struct acpi_info acpi;

/* How the parser reaches physical memory: a pointer to `len` readable
 * bytes at `phys`, or NULL if they are out of reach.  The kernel's
 * (drivers/platform/acpi.c) maps them; the host tests' hand out a copy. */
typedef const void *(*acpi_map_fn)(uint64_t phys, uint32_t len);

/* Find and check the tables through `map` (drivers/platform/acpi_tables.c);
 * print one line per table, or why it is ignored, and fill in `acpi`.
 * 0, or -ENODEV when there are no usable ACPI tables. */
int acpi_parse(acpi_map_fn map);
/* The same, starting from the boot loader's copy of the RSDP (`copy`,
 * `len` bytes: a Multiboot2 ACPI tag) when it is valid; the BIOS areas are
 * scanned when there is none or it is not (under UEFI there is nothing
 * there to find). */
int acpi_parse_from(acpi_map_fn map, const uint8_t *copy, uint32_t len);
/* acpi_parse(_from) with the kernel's identity map, and the loader's RSDP
 * copy if it gave one. */
int acpi_init(void);
/* Enter S5 (soft off).  Returns only on failure: -ENODEV without an FADT
 * and \_S5, -EINVAL if the machine is still running after the write. */
int acpi_poweroff(void);
/* Reset through the FADT reset register (I/O space only).  Returns only on
 * failure: -ENODEV if none is advertised or it is not in I/O space,
 * -EINVAL if the machine is still running after the write. */
int acpi_reset(void);
/* One table acpi_init looked at (the RSDP included), usable or not. */
#define ACPI_OEM_ID_LEN 6               /* OEM ids: 6 characters, space-padded */
struct acpi_table {
	char sig[5];                    /* "FACP", "APIC", ... as a C string */
	uint32_t addr, length;
	uint8_t revision;
	char oem_id[ACPI_OEM_ID_LEN + 1];  /* trailing spaces dropped */
	bool checksum_ok;
};
/* The i-th table in the order found, or NULL past the last one (none at all
 * on a machine without ACPI): for (i = 0; (t = acpi_table_at(i)); i++). */
const struct acpi_table *acpi_table_at(unsigned i);

#endif
