// SOURCES: drivers/platform/acpi_tables.c drivers/platform/acpi_sdt.c drivers/platform/acpi_decode.c kernel/lib/format.c
/* tests/fuzz/fuzz_acpi.c — libFuzzer harness for the ACPI table parser
 * (drivers/platform/acpi_tables.c, acpi_parse).
 *
 * The input is one control byte, then physical memory: its bytes lie from
 * FUZZ_ACPI_BASE (the start of the BIOS ROM area that acpi_parse searches
 * for the RSDP) on, zeros follow them up to the area's end at 1 MiB, and
 * everything else reads as out of reach.
 *
 * A mutated table almost never has a right checksum, so the parser would
 * drop it before reading a field.  When the control byte's low bit is set,
 * the harness first repairs them: every RSDP and every table header on a
 * 16-byte boundary (a signature of four capitals, digits or '_', a length
 * that fits) gets the checksum byte that makes it sum to 0, and the fuzzer
 * reaches the field and entry parsing with any lengths and pointers.  With
 * the bit clear, bad checksums go through as they are.  A seed (tests/fuzz/corpus/acpi/,
 * made by gen_acpi_seeds.py) is an RSDP at the start and a set of tables
 * after it whose pointers stay inside the blob; the fuzzer mutates lengths,
 * checksums and pointers from there.
 *
 * Every map hands out a fresh heap copy of exactly the bytes asked for
 * (fuzz_memory_map), so AddressSanitizer catches any read past what the
 * parser mapped -- a table read beyond its checked length -- even where
 * the real identity map would have let it through.  After the parse, the harness checks what
 * the kernel relies on: an HPET address it can map, a table list within
 * bounds, and only printable text on the console. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "drivers/acpi.h"
#include "errno.h"
#include "fuzz_host.h"

#define FUZZ_ACPI_BASE  0xE0000u            /* BIOS_ROM_START in acpi_tables.c */
#define FUZZ_ACPI_MAX   0x20000u            /* up to 1 MiB: the ROM area */

enum {
	FUZZ_CTL_FIX_CHECKSUMS = 1 << 0,    /* repair checksums before parsing */
	SDT_LENGTH = 4, SDT_CHECKSUM = 9, SDT_HEADER_LEN = 36,      /* ACPI 6.5, 5.2.6 */
	RSDP_CHECKSUM = 8, RSDP_V1_LEN = 20, RSDP_EXT_CHECKSUM = 32, RSDP_V2_LEN = 36, /* 5.2.5.3 */
	TABLE_ALIGN = 16,
};

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	while (n--)
		s += *p++;
	return s;
}

static bool sig_char(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void fix_checksums(uint8_t *m, size_t len)
{
	for (size_t off = 0; off + SDT_HEADER_LEN <= len; off += TABLE_ALIGN) {
		uint8_t *t = m + off;
		if (memcmp(t, "RSD PTR ", 8) == 0) {
			t[RSDP_CHECKSUM] -= sum(t, RSDP_V1_LEN);
			t[RSDP_EXT_CHECKSUM] -= sum(t, RSDP_V2_LEN);
			continue;
		}
		uint32_t tlen = (uint32_t)t[SDT_LENGTH] | (uint32_t)t[SDT_LENGTH + 1] << 8 |
		                (uint32_t)t[SDT_LENGTH + 2] << 16 | (uint32_t)t[SDT_LENGTH + 3] << 24;
		if (sig_char(t[0]) && sig_char(t[1]) && sig_char(t[2]) && sig_char(t[3]) &&
		    tlen >= SDT_HEADER_LEN && tlen <= len - off)
			t[SDT_CHECKSUM] -= sum(t, tlen);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size - 1 > FUZZ_ACPI_MAX)
		return -1;                      /* not memory the parser searches */
	uint8_t control = data[0];
	data++, size--;
	uint8_t *memory = fuzz_memory_load(FUZZ_ACPI_BASE, FUZZ_ACPI_MAX, data, size);
	if (control & FUZZ_CTL_FIX_CHECKSUMS)
		fix_checksums(memory, size);
	fuzz_forget_output();
	int rc = acpi_parse(fuzz_memory_map);
	fuzz_memory_unmap_all();

	if (rc != 0 && rc != -ENODEV)
		fuzz_fail("acpi_parse returned something other than 0 or -ENODEV");
	if (rc != 0 && acpi.present)
		fuzz_fail("acpi_parse failed but says tables are present");
	if (acpi.has_hpet && (acpi.hpet_base == 0 || acpi.hpet_base > UINT32_MAX - ACPI_HPET_BLOCK_LEN ||
	                      acpi.hpet_base % ACPI_HPET_BLOCK_LEN))
		fuzz_fail("an HPET address the kernel cannot map was accepted");
	if (acpi.s5_valid && (acpi.s5_slp_typa > ACPI_SLP_TYP_MAX || acpi.s5_slp_typb > ACPI_SLP_TYP_MAX))
		fuzz_fail("an \\_S5 sleep type wider than SLP_TYPx was accepted");
	const struct acpi_table *t;
	for (unsigned i = 0; (t = acpi_table_at(i)); i++) {
		fuzz_check_printable(t->sig, strlen(t->sig), "table signature");
		fuzz_check_printable(t->oem_id, strlen(t->oem_id), "table OEM id");
		if (i > 64)
			fuzz_fail("acpi_table_at lists more tables than it can hold");
	}
	return 0;
}
