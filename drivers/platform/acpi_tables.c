/* drivers/platform/acpi_tables.c — the ACPI tables: finding them, checking
 * them, and reading the handful of values lull needs.  No hardware here:
 * drivers/platform/acpi.c hands in the function that maps physical memory
 * and does the writes (S5, reset); tests/fuzz/fuzz_acpi.c and
 * tests/unit/test_acpi_tables.c run this file on the host against a fake
 * physical memory.
 *
 * Spec: ACPI 6.5, chapter 5.2.  The RSDP (5.2.5) points to the RSDT (5.2.7,
 * 32-bit pointers) or, from ACPI 2.0 on, the XSDT (5.2.8, 64-bit pointers);
 * they list the other tables, each of which starts with the common header
 * (5.2.6) and sums to 0 modulo 256.  We read:
 *   FADT (5.2.9, signature "FACP"): PM timer port and width, PM1 control
 *        ports, reset register, IAPC_BOOT_ARCH, RTC century index, the DSDT;
 *   DSDT (5.2.11.1): only the \_S5 package (7.4.2), for poweroff;
 *   MADT (5.2.12, signature "APIC"): local APIC, processors, I/O APIC, IRQ0;
 *   HPET (IA-PC HPET specification 1.0a, 3.2.4): the HPET's register block.
 * Other tables are only noted, for acpi_table_at() (the `acpi` command).
 *
 * Firmware bugs and hostile tables are expected: every length is checked
 * before the bytes it covers are read, and every table that fails a check
 * is dropped with one line, "acpi: <sig> at <address>: <why>, ignored",
 * after which lull runs on without it.  Of two tables with the same
 * signature the first valid one in the RSDT/XSDT wins and later ones are
 * ignored with a line saying so (QEMU lists its own tables before any given
 * with -acpitable, so a user's extra HPET table never displaces QEMU's).
 *
 * Tables are read as byte arrays: each field is a named offset below, and
 * a field beyond a table's length (an older, shorter revision) reads as 0,
 * which is how the spec says "absent".
 */
#include "drivers/acpi.h"
#include "errno.h"
#include "kprintf.h"
#include "kstring.h"

struct acpi_info acpi;

/* How the tables are reached: set by acpi_parse for the length of a parse. */
static acpi_map_fn map_phys;

/* Where the RSDP may be (5.2.5.1): the first KiB of the Extended BIOS Data
 * Area, then the BIOS ROM, on 16-byte boundaries. */
#define BDA_EBDA_SEGMENT    0x40E       /* BIOS data area: EBDA's real-mode segment */
#define EBDA_SEARCH_LEN     1024        /* only its first KiB is searched */
#define EBDA_LIMIT          0xA0000     /* the EBDA lies below 640 KiB */
#define BIOS_ROM_START      0xE0000     /* read-only BIOS area ... */
#define BIOS_ROM_END        0x100000    /* ... up to 1 MiB */
#define RSDP_ALIGN          16          /* the RSDP starts on a paragraph */
#define RSDP_SIGNATURE      "RSD PTR "  /* 8 bytes, trailing space included */

enum {                          /* RSDP (5.2.5.3) */
	RSDP_OEM_ID     = 9,    /* 6 characters */
	RSDP_REVISION   = 15,   /* 0: ACPI 1.0; 2 or more: has the XSDT */
	RSDP_RSDT       = 16,   /* 32-bit address of the RSDT */
	RSDP_LENGTH     = 20,   /* whole structure (revision 2+) */
	RSDP_XSDT       = 24,   /* 64-bit address of the XSDT */
	RSDP_V1_LEN     = 20,   /* bytes covered by the first checksum */
	RSDP_V2_LEN     = 36,   /* smallest length of a revision 2+ RSDP */
	RSDP_REV_ACPI2  = 2,    /* from this revision on: length, XSDT, ext. checksum */
};
/* The tables are read by offset, not through structs, so the layout checks
 * are on the offsets: each adds up the widths the spec gives for the fields
 * in between, and a mistyped offset breaks the chain. */
_Static_assert(RSDP_RSDT + 4 == RSDP_V1_LEN, "5.2.5.3: the ACPI 1.0 RSDP ends after RsdtAddress");
_Static_assert(RSDP_LENGTH + 4 == RSDP_XSDT, "5.2.5.3: Length (4), then XsdtAddress");
_Static_assert(RSDP_XSDT + 8 + 1 + 3 == RSDP_V2_LEN,
               "5.2.5.3: XsdtAddress (8), Extended Checksum (1), Reserved (3)");

enum {                          /* every table's header (5.2.6) */
	SDT_SIG_LEN     = 4,    /* the signature at offset 0: "FACP", "APIC", ... */
	SDT_LENGTH      = 4,    /* whole table, header included */
	SDT_REVISION    = 8,    /* of the table's layout */
	SDT_OEM_ID      = 10,   /* 6 characters */
	SDT_HEADER_LEN  = 36,   /* fields and entries start here */
};
_Static_assert(SDT_OEM_ID + 6 + 8 + 4 + 4 + 4 == SDT_HEADER_LEN,
               "5.2.6: OEM ID, OEM Table ID, OEM Revision, Creator ID, Creator Revision");

enum {                          /* Generic Address Structure (5.2.3.2) */
	GAS_SPACE       = 0,    /* ACPI_SPACE_* */
	GAS_ADDRESS     = 4,    /* 64-bit */
	GAS_LEN         = 12,   /* size of the structure */
};
_Static_assert(GAS_SPACE + 4 == GAS_ADDRESS && GAS_ADDRESS + 8 == GAS_LEN,
               "5.2.3.2: space id, bit width, bit offset, access size, then the address");

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

enum {                          /* HPET table (HPET spec 1.0a, 3.2.4) */
	HPET_TBL_BASE       = 40,   /* GAS of the register block */
	HPET_TBL_MIN_TICK   = 53,   /* 16 bits: smallest periodic period, in ticks */
};
_Static_assert(HPET_TBL_BASE == SDT_HEADER_LEN + 4, "HPET spec 3.2.4: Event Timer Block ID, then the base");
_Static_assert(HPET_TBL_MIN_TICK == HPET_TBL_BASE + GAS_LEN + 1, "HPET spec 3.2.4: HPET Number between");

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

/* A table longer than this is garbage (the largest real DSDTs are a few
 * hundred KiB); mapping it would use up the page-table pool. */
#define ACPI_TABLE_MAX_LEN      (1u << 20)
#define ACPI_MAX_TABLES         24          /* more than QEMU or a PC lists; an
                                               RSDT/XSDT listing more is cut here */
#define RSDP_MAX_LEN            4096        /* a longer "extended" RSDP is garbage */

/* Every table we looked at, usable or not, in the order found. */
static struct acpi_table tables[ACPI_MAX_TABLES];
static unsigned ntables;

const struct acpi_table *acpi_table_at(unsigned i)
{
	return i < ntables ? &tables[i] : NULL;
}

static uint32_t table_len(const uint8_t *t) { return (uint32_t)load_le(t + SDT_LENGTH, 4); }

/* A field of a table, or 0 if the table is too short to have it. */
static uint64_t field(const uint8_t *t, unsigned off, unsigned size)
{
	return off + size <= table_len(t) ? load_le(t + off, size) : 0;
}

/* Every ACPI checksum makes its bytes sum to 0 modulo 256. */
static uint8_t acpi_sum(const uint8_t *p, uint32_t len)
{
	uint8_t sum = 0;
	while (len--)
		sum += *p++;
	return sum;
}

/* `n` bytes of firmware text as a printable C string: a hostile table may
 * hold any bytes, and only printable ones go to the console. */
static void copy_text(char *out, const uint8_t *in, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = in[i] >= ' ' && in[i] <= '~' ? (char)in[i] : '?';
	out[n] = '\0';
}

/* An OEM id: 6 characters padded with spaces, as a C string. */
static void copy_oem_id(char out[ACPI_OEM_ID_LEN + 1], const uint8_t *in)
{
	copy_text(out, in, ACPI_OEM_ID_LEN);
	for (int i = ACPI_OEM_ID_LEN - 1; i >= 0 && out[i] == ' '; i--)
		out[i] = '\0';
}

static void note_table(const char *sig, uint32_t addr, uint32_t len, uint8_t rev,
                       const char *oem_id, bool ok)
{
	if (ntables == ACPI_MAX_TABLES)
		return;
	struct acpi_table *e = &tables[ntables++];
	*e = (struct acpi_table){ .addr = addr, .length = len, .revision = rev, .checksum_ok = ok };
	memcpy(e->sig, sig, SDT_SIG_LEN);
	memcpy(e->oem_id, oem_id, sizeof(e->oem_id));
}

/* Map the table at `phys`, check its length and checksum, list it and print
 * its boot line.  `want` is the signature expected there, or NULL for any.
 * Returns the whole table, or NULL (with the reason printed) if it is
 * unusable.  The map function may hand back a different pointer for the
 * header and for the whole table, so only the second is kept. */
static const uint8_t *acpi_table_load(uint64_t phys, const char *want)
{
	if (phys == 0)
		return NULL;
	const uint8_t *t = map_phys(phys, SDT_HEADER_LEN);
	if (!t) {
		kprintf("acpi: table at 0x%llx is out of reach, ignored\n", (unsigned long long)phys);
		return NULL;
	}
	char sig[SDT_SIG_LEN + 1];
	copy_text(sig, t, SDT_SIG_LEN);
	uint32_t addr = (uint32_t)phys, len = table_len(t);
	if (want && memcmp(t, want, SDT_SIG_LEN) != 0) {
		kprintf("acpi: %s at 0x%08x: found '%s' there, ignored\n", want, addr, sig);
		return NULL;
	}
	if (len < SDT_HEADER_LEN) {
		kprintf("acpi: %s at 0x%08x: length %u is shorter than the header, ignored\n",
		        sig, addr, len);
		return NULL;
	}
	if (len > ACPI_TABLE_MAX_LEN) {
		kprintf("acpi: %s at 0x%08x: length %u is too large, ignored\n", sig, addr, len);
		return NULL;
	}
	if (!(t = map_phys(phys, len))) {
		kprintf("acpi: %s at 0x%08x: its %u bytes run out of memory, ignored\n", sig, addr, len);
		return NULL;
	}
	char oem_id[ACPI_OEM_ID_LEN + 1];
	copy_oem_id(oem_id, t + SDT_OEM_ID);
	bool ok = acpi_sum(t, len) == 0;
	note_table(sig, addr, len, t[SDT_REVISION], oem_id, ok);
	if (!ok) {
		kprintf("acpi: %s at 0x%08x: bad checksum, ignored\n", sig, addr);
		return NULL;
	}
	kprintf("acpi: %s rev %u at 0x%08x, %u bytes (OEM %s)\n", sig, t[SDT_REVISION], addr, len, oem_id);
	return t;
}

/* The physical address of an RSDP with valid checksums in [start, end),
 * or 0. */
static uint32_t rsdp_scan(uint32_t start, uint32_t end)
{
	const uint8_t *area = map_phys(start, end - start);
	if (!area)
		return 0;
	for (uint32_t off = 0; off + RSDP_V1_LEN <= end - start; off += RSDP_ALIGN) {
		const uint8_t *p = area + off;
		/* The first byte alone rejects nearly every spot at once: the
		 * 8,000 spots of the BIOS area took 5 ms of the boot with a
		 * call to memcmp for each. */
		if (p[0] != RSDP_SIGNATURE[0] || memcmp(p, RSDP_SIGNATURE, sizeof(RSDP_SIGNATURE) - 1) != 0 ||
		    acpi_sum(p, RSDP_V1_LEN) != 0)
			continue;
		if (p[RSDP_REVISION] >= RSDP_REV_ACPI2) {
			/* The extended checksum covers `len` bytes, which may run
			 * past the area searched: map them on their own. */
			uint32_t len = (uint32_t)load_le(p + RSDP_LENGTH, 4);
			const uint8_t *whole = len >= RSDP_V2_LEN && len <= RSDP_MAX_LEN ?
			                       map_phys(start + off, len) : NULL;
			if (!whole || acpi_sum(whole, len) != 0)
				continue;
		}
		return start + off;
	}
	return 0;
}

/* The I/O port a fixed register block is at: the X_ field (a GAS) if it
 * names one, else the ACPI 1.0 32-bit field.  0 if neither. */
static uint16_t fadt_port(const uint8_t *f, unsigned x_off, unsigned off)
{
	uint64_t x = field(f, x_off + GAS_ADDRESS, 8);
	if (x && x <= UINT16_MAX && field(f, x_off + GAS_SPACE, 1) == ACPI_SPACE_IO)
		return (uint16_t)x;
	uint64_t port = field(f, off, 4);
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
	uint32_t len = table_len(dsdt) - SDT_HEADER_LEN;
	for (uint32_t i = 1; i + AML_NAME_LEN < len; i++) {
		/* The name's prefix first: a byte compare rules out almost every
		 * spot (a memcmp call at each of QEMU's 6500 bytes was 1.6 ms of
		 * the boot under -icount). */
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

static void parse_fadt(const uint8_t *f)
{
	acpi.has_fadt = true;
	uint32_t flags = (uint32_t)field(f, FADT_FLAGS, 4);
	if (field(f, FADT_PM_TMR_LEN, 1) == PM_TMR_LEN_PRESENT) {
		acpi.pm_timer_port = fadt_port(f, FADT_X_PM_TMR_BLK, FADT_PM_TMR_BLK);
		acpi.pm_timer_32bit = flags & FADT_F_TMR_VAL_EXT;
	}
	acpi.pm1a_cnt_port = fadt_port(f, FADT_X_PM1A_CNT_BLK, FADT_PM1A_CNT_BLK);
	acpi.pm1b_cnt_port = fadt_port(f, FADT_X_PM1B_CNT_BLK, FADT_PM1B_CNT_BLK);
	acpi.fadt_revision = f[SDT_REVISION];
	acpi.century_reg = (uint8_t)field(f, FADT_CENTURY, 1);
	if (acpi.fadt_revision >= ACPI_FADT_REV_BOOT_ARCH)
		acpi.boot_arch = (uint16_t)field(f, FADT_IAPC_BOOT_ARCH, 2);
	acpi.reset_addr = field(f, FADT_RESET_REG + GAS_ADDRESS, 8);
	acpi.reset_valid = (flags & FADT_F_RESET_REG_SUP) && acpi.reset_addr;
	acpi.reset_space = (uint8_t)field(f, FADT_RESET_REG + GAS_SPACE, 1);
	acpi.reset_value = (uint8_t)field(f, FADT_RESET_VALUE, 1);

	uint64_t dsdt = field(f, FADT_X_DSDT, 8);
	const uint8_t *d = acpi_table_load(dsdt ? dsdt : field(f, FADT_DSDT, 4), "DSDT");
	if (d)
		find_s5(d);
	if (!acpi.s5_valid)
		kprintf("acpi: no \\_S5 found in the DSDT; poweroff will not use ACPI\n");
}

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

static void parse_madt(const uint8_t *m, uint32_t addr)
{
	acpi.has_madt = true;
	acpi.lapic_base = (uint32_t)field(m, MADT_LAPIC_ADDR, 4);
	acpi.pcat_compat = field(m, MADT_FLAGS, 4) & MADT_F_PCAT_COMPAT;
	acpi.irq0_gsi = 0;          /* ISA IRQ n is GSI n unless overridden */
	uint32_t len = table_len(m);
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

/* The HPET's registers must be in memory space and below 4 GiB (lull maps
 * 32-bit addresses only), on the 1 KiB boundary of their block (HPET spec
 * 1.0a, 2.3.1: a 1024-byte register space).  An address that fails is
 * garbage, and writing a "configuration register" there could hit RAM. */
static void parse_hpet(const uint8_t *h, uint32_t addr)
{
	uint64_t base = field(h, HPET_TBL_BASE + GAS_ADDRESS, 8);
	uint8_t space = (uint8_t)field(h, HPET_TBL_BASE + GAS_SPACE, 1);
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
	acpi.hpet_min_tick = (uint16_t)field(h, HPET_TBL_MIN_TICK, 2);
}

/* Physical address of the EBDA, from the BIOS data area, or 0. */
static uint32_t ebda_address(void)
{
	const uint8_t *segment = map_phys(BDA_EBDA_SEGMENT, sizeof(uint16_t));
	return segment ? (uint32_t)load_le(segment, sizeof(uint16_t)) << 4 : 0;
}

/* The table at `t` (loaded from `addr`) is the one named `sig` we use;
 * true if it is the first valid one, else say why it is ignored. */
static bool first_of_its_kind(const uint8_t *t, uint32_t addr, const char *sig, bool seen)
{
	if (memcmp(t, sig, SDT_SIG_LEN) != 0)
		return false;
	if (seen)
		kprintf("acpi: %s at 0x%08x: a second %s table, ignored (the first valid one is used)\n",
		        sig, addr, sig);
	return !seen;
}

/* The boot loader's copy of the RSDP (Multiboot2 3.6.17, 3.6.18), if its
 * signature and checksums hold: the copy itself, and *v2 if it is a whole
 * ACPI 2.0 one (an ACPI 1.0 copy of a 2.0 RSDP is used as 1.0: RSDT only). */
static const uint8_t *rsdp_from_loader(const uint8_t *copy, uint32_t len, bool *v2)
{
	*v2 = false;
	if (!copy)
		return NULL;
	if (len < RSDP_V1_LEN || memcmp(copy, RSDP_SIGNATURE, sizeof(RSDP_SIGNATURE) - 1) != 0 ||
	    acpi_sum(copy, RSDP_V1_LEN) != 0) {
		kprintf("acpi: the boot loader's RSDP copy is not an RSDP, ignored\n");
		return NULL;
	}
	if (copy[RSDP_REVISION] >= RSDP_REV_ACPI2 && len >= RSDP_V2_LEN) {
		uint32_t whole = (uint32_t)load_le(copy + RSDP_LENGTH, 4);
		if (whole < RSDP_V2_LEN || whole > len || acpi_sum(copy, whole) != 0) {
			kprintf("acpi: the boot loader's ACPI 2.0 RSDP copy fails its checksum, ignored\n");
			return NULL;
		}
		*v2 = true;
	}
	return copy;
}

int acpi_parse(acpi_map_fn map)
{
	return acpi_parse_from(map, NULL, 0);
}

int acpi_parse_from(acpi_map_fn map, const uint8_t *copy, uint32_t copy_len)
{
	memset(&acpi, 0, sizeof(acpi));
	ntables = 0;
	map_phys = map;

	bool v2;
	const uint8_t *rsdp = rsdp_from_loader(copy, copy_len, &v2);
	uint32_t rsdp_addr = 0;
	if (!rsdp) {
		uint32_t ebda = ebda_address();
		if (ebda && ebda < EBDA_LIMIT)
			rsdp_addr = rsdp_scan(ebda, ebda + EBDA_SEARCH_LEN);
		if (!rsdp_addr)
			rsdp_addr = rsdp_scan(BIOS_ROM_START, BIOS_ROM_END);
		rsdp = rsdp_addr ? map_phys(rsdp_addr, RSDP_V1_LEN) : NULL;
		if (!rsdp) {
			kprintf("acpi: no RSDP found; running without ACPI\n");
			return -ENODEV;
		}
		if (rsdp[RSDP_REVISION] >= RSDP_REV_ACPI2) {   /* rsdp_scan checked these bytes */
			rsdp = map_phys(rsdp_addr, RSDP_V2_LEN);
			v2 = true;
		}
	}
	acpi.revision = rsdp[RSDP_REVISION];
	uint64_t xsdt = 0;
	uint32_t rsdp_len = RSDP_V1_LEN;
	if (v2) {
		rsdp_len = (uint32_t)load_le(rsdp + RSDP_LENGTH, 4);
		xsdt = load_le(rsdp + RSDP_XSDT, 8);
	}
	copy_oem_id(acpi.oem_id, rsdp + RSDP_OEM_ID);
	note_table("RSDP", rsdp_addr, rsdp_len, acpi.revision, acpi.oem_id, true);
	if (rsdp_addr)
		kprintf("acpi: RSDP rev %u at 0x%08x (OEM %s)\n", acpi.revision, rsdp_addr, acpi.oem_id);
	else
		kprintf("acpi: RSDP rev %u from the boot loader (OEM %s)\n", acpi.revision, acpi.oem_id);

	/* ACPI 2.0+ firmware lists 64-bit pointers in the XSDT; the RSDT is
	 * the ACPI 1.0 list, and our fallback if the XSDT is unusable. */
	unsigned entry = sizeof(uint64_t);
	const uint8_t *root = acpi_table_load(xsdt, "XSDT");
	if (!root) {
		entry = sizeof(uint32_t);
		root = acpi_table_load(load_le(rsdp + RSDP_RSDT, 4), "RSDT");
	}
	if (!root) {
		kprintf("acpi: no usable RSDT or XSDT; running without ACPI\n");
		return -ENODEV;
	}
	acpi.present = true;
	uint32_t count = (table_len(root) - SDT_HEADER_LEN) / entry;
	if (count > ACPI_MAX_TABLES) {
		kprintf("acpi: %.4s lists %u tables; only the first %u are read\n",
		        (const char *)root, count, ACPI_MAX_TABLES);
		count = ACPI_MAX_TABLES;
	}
	for (uint32_t i = 0; i < count; i++) {
		uint64_t phys = load_le(root + SDT_HEADER_LEN + i * entry, entry);
		const uint8_t *t = acpi_table_load(phys, NULL);
		if (!t)
			continue;
		if (first_of_its_kind(t, (uint32_t)phys, "FACP", acpi.has_fadt))
			parse_fadt(t);
		else if (first_of_its_kind(t, (uint32_t)phys, "APIC", acpi.has_madt))
			parse_madt(t, (uint32_t)phys);
		else if (first_of_its_kind(t, (uint32_t)phys, "HPET", acpi.has_hpet))
			parse_hpet(t, (uint32_t)phys);
	}
	return 0;
}
