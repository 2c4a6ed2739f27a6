// SOURCES: drivers/platform/acpi_tables.c drivers/platform/acpi_sdt.c drivers/platform/acpi_decode.c kernel/lib/format.c tests/fuzz/fuzz_host.c
/* Host tests for the ACPI table parser (drivers/platform/acpi_tables.c,
 * acpi_sdt.c, acpi_decode.c).
 *
 * Each test loads a seed of tests/fuzz/fuzz_acpi.c (a QEMU-like table set
 * laid out from 0xE0000, made by tests/fuzz/gen_acpi_seeds.py), breaks one
 * thing in it, and checks the table is dropped with one line and the rest
 * still used.  These are the cases the hostile-table brief names, and the
 * parser bugs the split for fuzzing brought out; the fake memory hands out
 * exact-size copies (tests/fuzz/fuzz_host.c), so a read past a mapped
 * table fails under AddressSanitizer here as it does in the fuzzer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/acpi.h"
#include "errno.h"
#include "../fuzz/fuzz_host.h"

/* Must match tests/fuzz/gen_acpi_seeds.py. */
#define BASE     0xE0000u
#define REGION   0x20000u
enum { OFF_RSDP = 0x000, OFF_RSDT = 0x040, OFF_XSDT = 0x080, OFF_FADT = 0x100,
       OFF_MADT = 0x300, OFF_HPET = 0x400, OFF_WAET = 0x440, SEED_SIZE = 0x480 };
enum { SDT_LENGTH = 4, SDT_CHECKSUM = 9, HPET_ADDRESS = 44, MADT_LEN_QEMU = 88 };

static uint8_t mem[SEED_SIZE];

static void load_seed(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/fuzz/corpus/acpi/%s", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fgetc(f), 0);          /* the harness's control byte */
	assert_int_equal(fread(mem, 1, sizeof(mem), f), sizeof(mem));
	fclose(f);
}

static void put32(uint32_t off, uint32_t v) { memcpy(mem + off, &v, sizeof(v)); }
static void put64(uint32_t off, uint64_t v) { memcpy(mem + off, &v, sizeof(v)); }

/* Make the table at `off` sum to 0 again after a change. */
static void fix_checksum(uint32_t off)
{
	uint32_t len;
	memcpy(&len, mem + off + SDT_LENGTH, sizeof(len));
	uint8_t sum = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += mem[off + i];
	mem[off + SDT_CHECKSUM] -= sum;
}

static int parse(void)
{
	fuzz_forget_output();
	fuzz_memory_load(BASE, REGION, mem, sizeof(mem));
	int rc = acpi_parse(fuzz_memory_map);
	fuzz_memory_unmap_all();
	return rc;
}

static void assert_printed(const char *line)
{
	if (!strstr(fuzz_output, line))
		fail_msg("expected \"%s\" in:\n%s", line, fuzz_output);
}

static void test_seeds_parse_whole(void **state)
{
	(void)state;
	load_seed("qemu-pc-acpi1.bin");
	assert_int_equal(parse(), 0);
	assert_true(acpi.has_fadt && acpi.has_madt && acpi.has_hpet && acpi.s5_valid);
	assert_int_equal(acpi.pm_timer_port, 0x608);
	assert_int_equal(acpi.cpu_count, 2);
	assert_int_equal(acpi.irq0_gsi, 2);
	assert_int_equal(acpi.hpet_base, 0xFED00000);
	assert_null(strstr(fuzz_output, "ignored"));

	load_seed("acpi2-xsdt.bin");
	assert_int_equal(parse(), 0);
	assert_printed("acpi: XSDT rev 1 at 0x000e0080");
	assert_true(acpi.reset_valid && acpi.s5_valid);
}

static void test_bad_checksum(void **state)
{
	(void)state;
	load_seed("qemu-pc-acpi1.bin");
	mem[OFF_HPET + SDT_CHECKSUM]++;
	assert_int_equal(parse(), 0);
	assert_printed("acpi: HPET at 0x000e0400: bad checksum, ignored\n");
	assert_false(acpi.has_hpet);
	assert_true(acpi.has_madt);
}

static void test_lengths(void **state)
{
	(void)state;
	load_seed("qemu-pc-acpi1.bin");
	put32(OFF_HPET + SDT_LENGTH, 20);               /* shorter than its header */
	put32(OFF_MADT + SDT_LENGTH, 0xFFFFFFF0);       /* huge, wraps 32 bits from here */
	put32(OFF_WAET + SDT_LENGTH, REGION);           /* runs past the end of memory */
	assert_int_equal(parse(), 0);
	assert_printed("acpi: HPET at 0x000e0400: length 20 is shorter than the header, ignored\n");
	assert_printed("acpi: APIC at 0x000e0300: length 4294967280 is too large, ignored\n");
	assert_printed("acpi: WAET at 0x000e0440: its 131072 bytes run out of memory, ignored\n");
	assert_true(acpi.has_fadt);
}

/* RSDT entries at garbage, at the RSDT itself, at the RSDP, above 4 GiB
 * (in the XSDT), and at the same HPET twice: each is one line, no loop. */
static void test_root_entries_pointing_anywhere(void **state)
{
	(void)state;
	load_seed("acpi2-xsdt.bin");
	put64(OFF_XSDT + 36, BASE + OFF_XSDT);          /* itself, in place of the FADT */
	put64(OFF_XSDT + 44, 0x100000000ull + BASE);    /* above 4 GiB, for the MADT */
	put64(OFF_XSDT + 60, BASE + OFF_HPET);          /* the HPET again, for the WAET */
	fix_checksum(OFF_XSDT);
	assert_int_equal(parse(), 0);
	assert_printed("acpi: table at 0x1000e0000 is out of reach, ignored\n");
	assert_printed("acpi: HPET at 0x000e0400: a second HPET table, ignored (the first valid one is used)\n");
	assert_false(acpi.has_fadt || acpi.has_madt);
	assert_true(acpi.has_hpet);

	load_seed("qemu-pc-acpi1.bin");
	put32(OFF_RSDT + 36, BASE + OFF_RSDP);          /* the RSDP: "PTR " is its "length" */
	put32(OFF_RSDT + 40, BASE + 0x1234);            /* zeros */
	fix_checksum(OFF_RSDT);
	assert_int_equal(parse(), 0);
	assert_printed("acpi: RSD  at 0x000e0000: length 542266448 is too large, ignored\n");
	assert_printed("acpi: ???? at 0x000e1234: length 0 is shorter than the header, ignored\n");
}

/* Found splitting the parser for the fuzzer: a MADT entry shorter than the
 * fields of its type, at the end of the table, was read past the table. */
static void test_madt_entries_too_short(void **state)
{
	(void)state;
	load_seed("qemu-pc-acpi1.bin");
	mem[OFF_MADT + 82] = 0;                         /* the 6-byte NMI entry becomes a LAPIC */
	fix_checksum(OFF_MADT);
	assert_int_equal(parse(), 0);
	assert_printed("acpi: APIC at 0x000e0300: entry of type 0 at offset 82 is 6 bytes long, "
	               "the rest ignored\n");
	assert_int_equal(acpi.cpu_count, 2);            /* the entries before it stand */

	load_seed("qemu-pc-acpi1.bin");
	mem[OFF_MADT + 45] = 0;                         /* first entry: length 0 */
	fix_checksum(OFF_MADT);
	assert_int_equal(parse(), 0);
	assert_printed("entry of type 0 at offset 44 is 0 bytes long, the rest ignored\n");
	assert_int_equal(acpi.cpu_count, 0);
}

/* Addresses of HPET registers the kernel must not write to. */
static void test_hpet_addresses(void **state)
{
	(void)state;
	load_seed("qemu-pc-acpi1.bin");
	put64(OFF_HPET + HPET_ADDRESS, 0xDEADBEEF00000000ull);
	fix_checksum(OFF_HPET);
	assert_int_equal(parse(), 0);
	assert_printed("acpi: HPET at 0x000e0400: register address out of reach (0xdeadbeef00000000), ignored\n");
	assert_false(acpi.has_hpet);

	put64(OFF_HPET + HPET_ADDRESS, 0x00123456);
	fix_checksum(OFF_HPET);
	assert_int_equal(parse(), 0);
	assert_printed("not on a 1 KiB boundary (0x123456), ignored\n");
	assert_false(acpi.has_hpet);
}

static void test_no_rsdp(void **state)
{
	(void)state;
	load_seed("qemu-pc-acpi1.bin");
	mem[OFF_RSDP + 8]++;                            /* its checksum */
	assert_int_equal(parse(), -ENODEV);
	assert_false(acpi.present);
	assert_printed("acpi: no RSDP found; running without ACPI\n");
}

/* The boot loader's RSDP copy (Multiboot2 ACPI tags): used when valid,
 * the BIOS area scanned when not; with no RSDP in the BIOS area (UEFI),
 * the copy is all there is. */
static void test_rsdp_copy_from_the_loader(void **state)
{
	(void)state;
	enum { RSDP_LEN_V2 = 36 };
	uint8_t copy[RSDP_LEN_V2];
	load_seed("acpi2-xsdt.bin");
	memcpy(copy, mem + OFF_RSDP, sizeof(copy));
	memset(mem + OFF_RSDP, 0, 8);                   /* nothing to scan for */
	fuzz_forget_output();
	fuzz_memory_load(BASE, REGION, mem, sizeof(mem));
	assert_int_equal(acpi_parse_from(fuzz_memory_map, copy, sizeof(copy)), 0);
	assert_printed("acpi: RSDP rev 2 from the boot loader (OEM");
	assert_printed("acpi: XSDT rev 1 at 0x000e0080");      /* the 2.0 copy leads to the XSDT */
	assert_true(acpi.has_fadt && acpi.has_hpet);
	/* Its first 20 bytes alone: an ACPI 1.0 copy, the RSDT then. */
	fuzz_forget_output();
	assert_int_equal(acpi_parse_from(fuzz_memory_map, copy, 20), 0);
	assert_null(strstr(fuzz_output, "XSDT"));
	assert_printed("acpi: RSDT rev");
	/* A broken copy is ignored, and with nothing in the BIOS area, so is ACPI. */
	copy[0] = 'X';
	fuzz_forget_output();
	assert_int_equal(acpi_parse_from(fuzz_memory_map, copy, sizeof(copy)), -ENODEV);
	assert_printed("acpi: the boot loader's RSDP copy is not an RSDP, ignored\n");
	assert_printed("acpi: no RSDP found");
	copy[0] = 'R';
	copy[32]++;                                     /* extended checksum broken */
	fuzz_forget_output();
	assert_int_equal(acpi_parse_from(fuzz_memory_map, copy, sizeof(copy)), -ENODEV);
	assert_printed("fails its checksum, ignored");
	fuzz_memory_unmap_all();
	/* A bad copy with a good RSDP in the BIOS area: the scan finds it. */
	load_seed("acpi2-xsdt.bin");
	fuzz_forget_output();
	fuzz_memory_load(BASE, REGION, mem, sizeof(mem));
	assert_int_equal(acpi_parse_from(fuzz_memory_map, copy, sizeof(copy)), 0);
	assert_printed("acpi: RSDP rev 2 at 0x000e0000");
	fuzz_memory_unmap_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seeds_parse_whole),
		cmocka_unit_test(test_bad_checksum),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_root_entries_pointing_anywhere),
		cmocka_unit_test(test_madt_entries_too_short),
		cmocka_unit_test(test_hpet_addresses),
		cmocka_unit_test(test_no_rsdp),
		cmocka_unit_test(test_rsdp_copy_from_the_loader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
