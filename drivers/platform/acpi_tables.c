/* drivers/platform/acpi_tables.c — the ACPI tables: finding them, checking
 * them, and reading the handful of values lull needs.  No hardware here:
 * drivers/platform/acpi.c hands in the function that maps physical memory
 * and does the writes (S5, reset); tests/fuzz/fuzz_acpi.c and
 * tests/unit/test_acpi_tables.c run the parser on the host against a fake
 * physical memory.  This file finds the tables -- the RSDP, the RSDT or
 * XSDT it points to, the walk over what that lists -- and is the parser's
 * entry point, acpi_parse(); acpi_sdt.c checks and lists each table, and
 * acpi_decode.c reads the values (acpi_internal.h: what the three share).
 *
 * Spec: ACPI 6.5, chapter 5.2.  The RSDP (5.2.5) points to the RSDT (5.2.7,
 * 32-bit pointers) or, from ACPI 2.0 on, the XSDT (5.2.8, 64-bit pointers);
 * they list the other tables, each of which starts with the common header
 * (5.2.6) and sums to 0 modulo 256.  We read (acpi_decode.c):
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
 * Tables are read as byte arrays: each field is a named offset (the RSDP's
 * below, the common header's in acpi_internal.h, each table's own in
 * acpi_decode.c), and a field beyond a table's length (an older, shorter
 * revision) reads as 0, which is how the spec says "absent".
 */
#include "acpi_internal.h"
#include "errno.h"
#include "kprintf.h"

struct acpi_info acpi;

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

#define RSDP_MAX_LEN            4096        /* a longer "extended" RSDP is garbage */

/* The physical address of an RSDP with valid checksums in [start, end),
 * or 0. */
static uint32_t rsdp_scan(uint32_t start, uint32_t end)
{
	const uint8_t *area = acpi_map_phys(start, end - start);
	if (!area)
		return 0;
	for (uint32_t off = 0; off + RSDP_V1_LEN <= end - start; off += RSDP_ALIGN) {
		const uint8_t *p = area + off;
		/* The first byte alone rejects nearly every spot at once: with
		 * a call to memcmp for each of the BIOS area's spots (up to
		 * 8,192: 128 KiB in 16-byte steps) the search was a noticeable
		 * share of the boot. */
		if (p[0] != RSDP_SIGNATURE[0] || memcmp(p, RSDP_SIGNATURE, sizeof(RSDP_SIGNATURE) - 1) != 0 ||
		    acpi_sum(p, RSDP_V1_LEN) != 0)
			continue;
		if (p[RSDP_REVISION] >= RSDP_REV_ACPI2) {
			/* The extended checksum covers `len` bytes, which may run
			 * past the area searched: map them on their own. */
			uint32_t len = (uint32_t)load_le(p + RSDP_LENGTH, 4);
			const uint8_t *whole = len >= RSDP_V2_LEN && len <= RSDP_MAX_LEN ?
			                       acpi_map_phys(start + off, len) : NULL;
			if (!whole || acpi_sum(whole, len) != 0)
				continue;
		}
		return start + off;
	}
	return 0;
}

/* Physical address of the EBDA, from the BIOS data area, or 0. */
static uint32_t ebda_address(void)
{
	const uint8_t *segment = acpi_map_phys(BDA_EBDA_SEGMENT, sizeof(uint16_t));
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

/* The RSDP the BIOS left in memory: in the EBDA's first KiB, then in the
 * BIOS ROM.  Returns it (the whole ACPI 2.0 one, with *v2 set, if that is
 * what it is) and where it is in *rsdp_addr; NULL, with one line, if there
 * is none. */
static const uint8_t *rsdp_search(uint32_t *rsdp_addr, bool *v2)
{
	uint32_t ebda = ebda_address();
	if (ebda && ebda < EBDA_LIMIT)
		*rsdp_addr = rsdp_scan(ebda, ebda + EBDA_SEARCH_LEN);
	if (!*rsdp_addr)
		*rsdp_addr = rsdp_scan(BIOS_ROM_START, BIOS_ROM_END);
	const uint8_t *rsdp = *rsdp_addr ? acpi_map_phys(*rsdp_addr, RSDP_V1_LEN) : NULL;
	if (!rsdp) {
		kprintf("acpi: no RSDP found; running without ACPI\n");
		return NULL;
	}
	if (rsdp[RSDP_REVISION] >= RSDP_REV_ACPI2) {   /* rsdp_scan checked these bytes */
		rsdp = acpi_map_phys(*rsdp_addr, RSDP_V2_LEN);
		*v2 = true;
	}
	return rsdp;
}

/* The RSDP's revision and OEM id into `acpi`, the RSDP listed and its boot
 * line printed (rsdp_addr 0: the boot loader's copy).  Returns the XSDT's
 * address, 0 for an ACPI 1.0 RSDP. */
static uint64_t rsdp_note(const uint8_t *rsdp, uint32_t rsdp_addr, bool v2)
{
	acpi.revision = rsdp[RSDP_REVISION];
	uint64_t xsdt = 0;
	uint32_t rsdp_len = RSDP_V1_LEN;
	if (v2) {
		rsdp_len = (uint32_t)load_le(rsdp + RSDP_LENGTH, 4);
		xsdt = load_le(rsdp + RSDP_XSDT, 8);
	}
	acpi_copy_oem_id(acpi.oem_id, rsdp + RSDP_OEM_ID);
	acpi_note_table("RSDP", rsdp_addr, rsdp_len, acpi.revision, acpi.oem_id, true);
	if (rsdp_addr)
		kprintf("acpi: RSDP rev %u at 0x%08x (OEM %s)\n", acpi.revision, rsdp_addr, acpi.oem_id);
	else
		kprintf("acpi: RSDP rev %u from the boot loader (OEM %s)\n", acpi.revision, acpi.oem_id);
	return xsdt;
}

/* ACPI 2.0+ firmware lists 64-bit pointers in the XSDT; the RSDT is
 * the ACPI 1.0 list, and our fallback if the XSDT is unusable.  Returns
 * the list, and the width of its entries in *entry; NULL if neither is
 * usable. */
static const uint8_t *root_load(const uint8_t *rsdp, uint64_t xsdt, unsigned *entry)
{
	*entry = sizeof(uint64_t);
	const uint8_t *root = acpi_table_load(xsdt, "XSDT");
	if (!root) {
		*entry = sizeof(uint32_t);
		root = acpi_table_load(load_le(rsdp + RSDP_RSDT, 4), "RSDT");
	}
	return root;
}

/* Load every table the RSDT/XSDT `root` lists (the first ACPI_MAX_TABLES)
 * and decode the first valid FADT, MADT and HPET table. */
static void root_walk(const uint8_t *root, unsigned entry)
{
	uint32_t count = (acpi_table_len(root) - SDT_HEADER_LEN) / entry;
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
			acpi_parse_fadt(t);
		else if (first_of_its_kind(t, (uint32_t)phys, "APIC", acpi.has_madt))
			acpi_parse_madt(t, (uint32_t)phys);
		else if (first_of_its_kind(t, (uint32_t)phys, "HPET", acpi.has_hpet))
			acpi_parse_hpet(t, (uint32_t)phys);
	}
}

int acpi_parse(acpi_map_fn map)
{
	return acpi_parse_from(map, NULL, 0);
}

int acpi_parse_from(acpi_map_fn map, const uint8_t *copy, uint32_t copy_len)
{
	memset(&acpi, 0, sizeof(acpi));
	acpi_forget_tables();
	acpi_map_phys = map;

	bool v2;
	const uint8_t *rsdp = rsdp_from_loader(copy, copy_len, &v2);
	uint32_t rsdp_addr = 0;
	if (!rsdp && !(rsdp = rsdp_search(&rsdp_addr, &v2)))
		return -ENODEV;
	uint64_t xsdt = rsdp_note(rsdp, rsdp_addr, v2);

	unsigned entry;
	const uint8_t *root = root_load(rsdp, xsdt, &entry);
	if (!root) {
		kprintf("acpi: no usable RSDT or XSDT; running without ACPI\n");
		return -ENODEV;
	}
	acpi.present = true;
	root_walk(root, entry);
	return 0;
}
