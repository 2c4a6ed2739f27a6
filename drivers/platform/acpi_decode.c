/* drivers/platform/acpi_decode.c — what lull reads from the ACPI tables it
 * uses: the FADT (and the \_S5 package of the DSDT it points to), the MADT
 * and the HPET table, into `acpi` (include/drivers/acpi.h).  Each table
 * has a section below: its layout as named offsets with the spec section
 * they come from, then the function that reads it.  A table arrives here
 * already checked (acpi_sdt.c) and the first valid one of its kind
 * (acpi_tables.c's walk); what is left to check is what lies inside it,
 * a MADT entry's length or an AML package's, before the bytes it covers
 * are read.
 *
 * Spec: ACPI 6.5, 5.2.9 (FADT), 5.2.11.1 and chapter 20 (DSDT, AML),
 * 7.4.2 (\_S5), 5.2.12 (MADT); IA-PC HPET specification 1.0a, 3.2.4.
 */
#include "acpi_internal.h"
#include "kprintf.h"

/* ------------------------------------------------ FADT, and the DSDT's \_S5 */

enum {                          /* FADT (5.2.9, Table 5.9) */
	FADT_DSDT           = 40,   /* 32-bit address of the DSDT */
	FADT_PM1A_CNT_BLK   = 64,   /* I/O port of PM1a control */
	FADT_PM1B_CNT_BLK   = 68,   /* I/O port of PM1b control, 0 if none */
	FADT_PM_TMR_BLK     = 76,   /* I/O port of the PM timer */
	FADT_PM_TMR_LEN     = 91,   /* 4 if there is a PM timer, else 0 */
	FADT_CENTURY        = 108,  /* CMOS index of the RTC century byte */
	FADT_IAPC_BOOT_ARCH = 109,  /* 16 bits, ACPI_BOOT_* */
	FADT_FLAGS          = 112,  /* FADT_F_* */
	FADT_RESET_REG      = 116,  /* GAS (ACPI 2.0 and later) */
	FADT_RESET_VALUE    = 128,  /* byte that resets the machine */
	FADT_X_DSDT         = 140,  /* 64-bit address of the DSDT */
	FADT_X_PM1A_CNT_BLK = 172,  /* GAS */
	FADT_X_PM1B_CNT_BLK = 184,  /* GAS */
	FADT_X_PM_TMR_BLK   = 208,  /* GAS */
};
_Static_assert(FADT_DSDT == SDT_HEADER_LEN + 4, "Table 5.9: FIRMWARE_CTRL (4), then DSDT");
_Static_assert(FADT_PM1B_CNT_BLK == FADT_PM1A_CNT_BLK + 4, "Table 5.9");
_Static_assert(FADT_PM_TMR_BLK == FADT_PM1B_CNT_BLK + 4 + 4, "Table 5.9: PM2_CNT_BLK between");
_Static_assert(FADT_PM_TMR_LEN == FADT_PM_TMR_BLK + 4 + 4 + 4 + 3,
               "Table 5.9: GPE0_BLK, GPE1_BLK, then PM1_EVT_LEN, PM1_CNT_LEN, PM2_CNT_LEN");
_Static_assert(FADT_IAPC_BOOT_ARCH == FADT_CENTURY + 1, "Table 5.9");
_Static_assert(FADT_FLAGS == FADT_IAPC_BOOT_ARCH + 2 + 1, "Table 5.9: a reserved byte between");
_Static_assert(FADT_RESET_REG == FADT_FLAGS + 4 && FADT_RESET_VALUE == FADT_RESET_REG + GAS_LEN,
               "Table 5.9");
_Static_assert(FADT_X_DSDT == FADT_RESET_VALUE + 1 + 2 + 1 + 8,
               "Table 5.9: ARM_BOOT_ARCH, minor version, X_FIRMWARE_CTRL between");
_Static_assert(FADT_X_PM1A_CNT_BLK == FADT_X_DSDT + 8 + 2 * GAS_LEN,
               "Table 5.9: X_PM1a_EVT_BLK, X_PM1b_EVT_BLK between");
_Static_assert(FADT_X_PM1B_CNT_BLK == FADT_X_PM1A_CNT_BLK + GAS_LEN, "Table 5.9");
_Static_assert(FADT_X_PM_TMR_BLK == FADT_X_PM1B_CNT_BLK + 2 * GAS_LEN,
               "Table 5.9: X_PM2_CNT_BLK between");
#define FADT_F_TMR_VAL_EXT      (1u << 8)   /* PM timer is 32 bits, not 24 */
#define FADT_F_RESET_REG_SUP    (1u << 10)  /* RESET_REG is implemented */
#define PM_TMR_LEN_PRESENT      4           /* PM_TMR_LEN when there is a timer */

/* AML bytes of Name(_S5, Package(){ a, b, ... }) (ACPI 6.5, chapter 20). */
enum {
	AML_ZERO_OP     = 0x00,   /* the constant 0 */
	AML_ONE_OP      = 0x01,   /* the constant 1 */
	AML_NAME_OP     = 0x08,   /* Name(NameString, Object) */
	AML_BYTE_PREFIX = 0x0A,   /* next byte is a constant */
	AML_PACKAGE_OP  = 0x12,   /* PkgLength NumElements Elements... */
	AML_ROOT_CHAR   = 0x5C,   /* '\' before a name: absolute path */
};
#define AML_PKGLEN_EXTRA_SHIFT  6   /* PkgLength's first byte, bits 6-7: bytes that follow */
#define AML_NAME_LEN            4   /* a name segment: "_S5_" */

/* The I/O port a fixed register block is at: the X_ field (a GAS) if it
 * names one, else the ACPI 1.0 32-bit field.  0 if neither. */
static uint16_t fadt_port(const uint8_t *f, unsigned x_off, unsigned off)
{
	uint64_t x = acpi_field(f, x_off + GAS_ADDRESS, 8);
	if (x && x <= UINT16_MAX && acpi_field(f, x_off + GAS_SPACE, 1) == ACPI_SPACE_IO)
		return (uint16_t)x;
	uint64_t port = acpi_field(f, off, 4);
	return port <= UINT16_MAX ? (uint16_t)port : 0;
}

/* One element of the \_S5 package at aml[i] if it is a small constant:
 * ZeroOp, OneOp, or BytePrefix and a byte.  Returns the bytes it takes, 0
 * if the element is anything else or runs past `len`. */
static uint32_t aml_small_const(const uint8_t *aml, uint32_t i, uint32_t len, uint8_t *out)
{
	if (i < len && (aml[i] == AML_ZERO_OP || aml[i] == AML_ONE_OP)) {
		*out = aml[i];
		return 1;
	}
	if (i + 1 < len && aml[i] == AML_BYTE_PREFIX) {
		*out = aml[i + 1];
		return 2;
	}
	return 0;
}

/* Find \_S5 without an AML interpreter: look for the bytes
 *     NameOp ['\'] "_S5_" PackageOp PkgLength NumElements a b ...
 * and decode the first two elements.  PkgLength (20.2.4) is 1 to 4 bytes:
 * the top two bits of its first byte count the bytes that follow.  This
 * finds QEMU's Name(_S5, Package(4){ 0, 0, 0, 0 }) and the same plain form
 * most firmware writes, but it is a trick, not a parser: an _S5 defined
 * under an If, built by a method, given as a WordConst, or found only in
 * an SSDT is missed (or, rarely, a byte pattern that merely looks like one
 * is taken), and then poweroff falls back to its next method.  Indexes,
 * not pointers, walk the AML so nothing points past the table. */
static void find_s5(const uint8_t *dsdt)
{
	const uint8_t *aml = dsdt + SDT_HEADER_LEN;
	uint32_t len = acpi_table_len(dsdt) - SDT_HEADER_LEN;
	for (uint32_t i = 1; i + AML_NAME_LEN < len; i++) {
		/* The name's prefix first: a byte compare rules out almost every
		 * spot (a memcmp call at each of the DSDT's bytes, thousands of
		 * them in QEMU's, as `acpi` lists, was a noticeable share of the
		 * boot). */
		bool named = aml[i - 1] == AML_NAME_OP ||
		             (aml[i - 1] == AML_ROOT_CHAR && i >= 2 && aml[i - 2] == AML_NAME_OP);
		if (!named || memcmp(aml + i, "_S5_", AML_NAME_LEN) != 0)
			continue;
		uint32_t q = i + AML_NAME_LEN;
		if (aml[q++] != AML_PACKAGE_OP || q >= len)
			continue;
		q += 1 + (aml[q] >> AML_PKGLEN_EXTRA_SHIFT) + 1;    /* PkgLength, NumElements */
		uint8_t a, b;
		uint32_t n = aml_small_const(aml, q, len, &a);
		if (n && aml_small_const(aml, q + n, len, &b) && a <= ACPI_SLP_TYP_MAX &&
		    b <= ACPI_SLP_TYP_MAX) {
			acpi.s5_valid = true;
			acpi.s5_slp_typa = a;
			acpi.s5_slp_typb = b;
			return;
		}
	}
}

void acpi_parse_fadt(const uint8_t *f)
{
	acpi.has_fadt = true;
	uint32_t flags = (uint32_t)acpi_field(f, FADT_FLAGS, 4);
	if (acpi_field(f, FADT_PM_TMR_LEN, 1) == PM_TMR_LEN_PRESENT) {
		acpi.pm_timer_port = fadt_port(f, FADT_X_PM_TMR_BLK, FADT_PM_TMR_BLK);
		acpi.pm_timer_32bit = flags & FADT_F_TMR_VAL_EXT;
	}
	acpi.pm1a_cnt_port = fadt_port(f, FADT_X_PM1A_CNT_BLK, FADT_PM1A_CNT_BLK);
	acpi.pm1b_cnt_port = fadt_port(f, FADT_X_PM1B_CNT_BLK, FADT_PM1B_CNT_BLK);
	acpi.fadt_revision = f[SDT_REVISION];
	acpi.century_reg = (uint8_t)acpi_field(f, FADT_CENTURY, 1);
	if (acpi.fadt_revision >= ACPI_FADT_REV_BOOT_ARCH)
		acpi.boot_arch = (uint16_t)acpi_field(f, FADT_IAPC_BOOT_ARCH, 2);
	acpi.reset_addr = acpi_field(f, FADT_RESET_REG + GAS_ADDRESS, 8);
	acpi.reset_valid = (flags & FADT_F_RESET_REG_SUP) && acpi.reset_addr;
	acpi.reset_space = (uint8_t)acpi_field(f, FADT_RESET_REG + GAS_SPACE, 1);
	acpi.reset_value = (uint8_t)acpi_field(f, FADT_RESET_VALUE, 1);

	uint64_t dsdt = acpi_field(f, FADT_X_DSDT, 8);
	const uint8_t *d = acpi_table_load(dsdt ? dsdt : acpi_field(f, FADT_DSDT, 4), "DSDT");
	if (d)
		find_s5(d);
	if (!acpi.s5_valid)
		kprintf("acpi: no \\_S5 found in the DSDT; poweroff will not use ACPI\n");
}

/* ------------------------------------------------ MADT */

enum {                          /* MADT (5.2.12) and its entries */
	MADT_LAPIC_ADDR     = 36,   /* 32-bit local APIC address */
	MADT_FLAGS          = 40,   /* MADT_F_* */
	MADT_ENTRIES        = 44,   /* first entry: type byte, length byte, body */
	MADT_E_TYPE         = 0,    /* entry: MADT_LOCAL_APIC, ... */
	MADT_E_LEN          = 1,    /* entry: its length, header included */
	MADT_E_HEADER       = 2,    /* entry: the type and length bytes */
	MADT_LAPIC_APIC_ID  = 3,    /* type 0: the processor's local APIC ID */
	MADT_LAPIC_FLAGS    = 4,    /* type 0: MADT_LAPIC_ENABLED */
	MADT_IOAPIC_ADDR    = 4,    /* type 1: 32-bit I/O APIC address */
	MADT_ISO_BUS        = 2,    /* type 2: 0 = ISA */
	MADT_ISO_SOURCE     = 3,    /* type 2: ISA IRQ */
	MADT_ISO_GSI        = 4,    /* type 2: the GSI it arrives on */
	MADT_LAPIC_ADDR64   = 4,    /* type 5: 64-bit local APIC address */
};
_Static_assert(MADT_LAPIC_ADDR == (int)SDT_HEADER_LEN && MADT_FLAGS == MADT_LAPIC_ADDR + 4 &&
               MADT_ENTRIES == MADT_FLAGS + 4, "5.2.12, Table 5.19");
_Static_assert(MADT_LAPIC_FLAGS == MADT_E_HEADER + 1 + 1,
               "5.2.12.2: ACPI Processor UID, APIC ID, then Flags");
_Static_assert(MADT_IOAPIC_ADDR == MADT_E_HEADER + 1 + 1, "5.2.12.3: I/O APIC ID, reserved, address");
_Static_assert(MADT_ISO_BUS == MADT_E_HEADER && MADT_ISO_GSI == MADT_ISO_SOURCE + 1,
               "5.2.12.5: Bus, Source, then Global System Interrupt");
_Static_assert(MADT_LAPIC_ADDR64 == MADT_E_HEADER + 2, "5.2.12.8: reserved (2), then the address");
enum {                          /* MADT entry types */
	MADT_LOCAL_APIC     = 0,    /* one per processor */
	MADT_IO_APIC        = 1,
	MADT_IRQ_OVERRIDE   = 2,    /* an ISA IRQ wired to another GSI */
	MADT_LAPIC_OVERRIDE = 5,    /* 64-bit local APIC address */
};
/* The shortest entry of each type we read (5.2.12.2, .3, .5, .8): an entry
 * shorter than its fields is malformed, whatever its length byte says. */
enum {
	MADT_LAPIC_MIN_LEN         = 8,
	MADT_IOAPIC_MIN_LEN        = 12,
	MADT_IRQ_OVERRIDE_MIN_LEN  = 10,
	MADT_LAPIC_OVERRIDE_MIN_LEN = 12,
};
#define MADT_F_PCAT_COMPAT      (1u << 0)   /* 8259 PICs present too */
#define MADT_LAPIC_ENABLED      (1u << 0)   /* processor usable now */

/* Is the MADT entry at m[off] long enough for the fields of its type? */
static bool madt_entry_fits(const uint8_t *e)
{
	switch (e[MADT_E_TYPE]) {
	case MADT_LOCAL_APIC:     return e[MADT_E_LEN] >= MADT_LAPIC_MIN_LEN;
	case MADT_IO_APIC:        return e[MADT_E_LEN] >= MADT_IOAPIC_MIN_LEN;
	case MADT_IRQ_OVERRIDE:   return e[MADT_E_LEN] >= MADT_IRQ_OVERRIDE_MIN_LEN;
	case MADT_LAPIC_OVERRIDE: return e[MADT_E_LEN] >= MADT_LAPIC_OVERRIDE_MIN_LEN;
	default:                  return true;      /* not read */
	}
}

void acpi_parse_madt(const uint8_t *m, uint32_t addr)
{
	acpi.has_madt = true;
	acpi.lapic_base = (uint32_t)acpi_field(m, MADT_LAPIC_ADDR, 4);
	acpi.pcat_compat = acpi_field(m, MADT_FLAGS, 4) & MADT_F_PCAT_COMPAT;
	acpi.irq0_gsi = 0;          /* ISA IRQ n is GSI n unless overridden */
	uint32_t len = acpi_table_len(m);
	for (uint32_t off = MADT_ENTRIES; off + MADT_E_HEADER <= len; off += m[off + MADT_E_LEN]) {
		const uint8_t *e = m + off;
		if (e[MADT_E_LEN] < MADT_E_HEADER || off + e[MADT_E_LEN] > len || !madt_entry_fits(e)) {
			/* Malformed: stop rather than loop, overrun or guess. */
			kprintf("acpi: APIC at 0x%08x: entry of type %u at offset %u is %u bytes long, "
			        "the rest ignored\n", addr, e[MADT_E_TYPE], off, e[MADT_E_LEN]);
			break;
		}
		if (e[MADT_E_TYPE] == MADT_LOCAL_APIC && (load_le(e + MADT_LAPIC_FLAGS, 4) & MADT_LAPIC_ENABLED)) {
			if (acpi.cpu_count < ACPI_MAX_CPUS)
				acpi.cpu_apic_id[acpi.cpu_count] = e[MADT_LAPIC_APIC_ID];
			acpi.cpu_count++;
		}
		else if (e[MADT_E_TYPE] == MADT_IO_APIC && !acpi.ioapic_base)
			acpi.ioapic_base = (uint32_t)load_le(e + MADT_IOAPIC_ADDR, 4);
		else if (e[MADT_E_TYPE] == MADT_IRQ_OVERRIDE && e[MADT_ISO_BUS] == 0 && e[MADT_ISO_SOURCE] == 0)
			acpi.irq0_gsi = (uint32_t)load_le(e + MADT_ISO_GSI, 4);
		else if (e[MADT_E_TYPE] == MADT_LAPIC_OVERRIDE && load_le(e + MADT_LAPIC_ADDR64, 8) <= UINT32_MAX)
			acpi.lapic_base = (uint32_t)load_le(e + MADT_LAPIC_ADDR64, 8);
	}
}

/* ------------------------------------------------ HPET table */

enum {                          /* HPET table (HPET spec 1.0a, 3.2.4) */
	HPET_TBL_BASE       = 40,   /* GAS of the register block */
	HPET_TBL_MIN_TICK   = 53,   /* 16 bits: smallest periodic period, in ticks */
};
_Static_assert(HPET_TBL_BASE == SDT_HEADER_LEN + 4, "HPET spec 3.2.4: Event Timer Block ID, then the base");
_Static_assert(HPET_TBL_MIN_TICK == HPET_TBL_BASE + GAS_LEN + 1, "HPET spec 3.2.4: HPET Number between");

/* The HPET's registers must be in memory space and below 4 GiB (lull maps
 * 32-bit addresses only), on the 1 KiB boundary of their block (HPET spec
 * 1.0a, 2.3.1: a 1024-byte register space).  An address that fails is
 * garbage, and writing a "configuration register" there could hit RAM. */
void acpi_parse_hpet(const uint8_t *h, uint32_t addr)
{
	uint64_t base = acpi_field(h, HPET_TBL_BASE + GAS_ADDRESS, 8);
	uint8_t space = (uint8_t)acpi_field(h, HPET_TBL_BASE + GAS_SPACE, 1);
	const char *why = NULL;
	if (space != ACPI_SPACE_MEMORY)
		why = "registers not in memory space";
	else if (!base || base > UINT32_MAX - ACPI_HPET_BLOCK_LEN)
		why = "register address out of reach";
	else if (base % ACPI_HPET_BLOCK_LEN)
		why = "register address not on a 1 KiB boundary";
	if (why) {
		kprintf("acpi: HPET at 0x%08x: %s (0x%llx), ignored\n", addr, why,
		        (unsigned long long)base);
		return;
	}
	acpi.has_hpet = true;
	acpi.hpet_base = base;
	acpi.hpet_min_tick = (uint16_t)acpi_field(h, HPET_TBL_MIN_TICK, 2);
}
