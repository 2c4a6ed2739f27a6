// SOURCES: kernel/lib/multiboot2.c kernel/lib/format.c tests/fuzz/fuzz_host.c
/* Host tests for the check of the Multiboot2 information block
 * (kernel/lib/multiboot2.c) with crafted tag lists: GRUB's kind of block
 * kept whole; truncated tags, unknown tags, sizes that are not multiples
 * of 8, a tag running past the block, a missing end tag, tags too short
 * for their payload; the RSDP copies and which one wins.  The fake memory
 * and kprintf are tests/fuzz/fuzz_host.c's, as the fuzz harness uses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "multiboot2.h"
#include "errno.h"
#include "../fuzz/fuzz_host.h"

#define BASE 0x10000u
static uint8_t mem[1024];
static uint32_t used;                   /* bytes of mem the block has so far */
static struct boot_info bi;

static const void *map(uint32_t phys, uint32_t len) { return fuzz_memory_map(phys, len); }

static void put32(uint32_t off, uint32_t v) { memcpy(mem + off, &v, 4); }

static void begin(void)
{
	memset(mem, 0, sizeof(mem));
	used = MB2_INFO_HEADER_LEN;
	fuzz_forget_output();
}

/* A tag of `type` whose size field says `size`, with `len` payload bytes
 * from `payload`; the next tag goes on the next 8-byte boundary.  Returns
 * the payload's offset. */
static uint32_t tag_sized(uint32_t type, uint32_t size, const void *payload, uint32_t len)
{
	uint32_t off = used;
	put32(off, type);
	put32(off + 4, size);
	if (len)
		memcpy(mem + off + 8, payload, len);
	used += (8 + len + 7) / 8 * 8;
	return off + 8;
}

static uint32_t tag(uint32_t type, const void *payload, uint32_t len)
{
	return tag_sized(type, 8 + len, payload, len);
}

static void end(void)
{
	tag(MB2_TAG_END, NULL, 0);
	put32(0, used);
}

static int parse(void)
{
	fuzz_memory_load(BASE, sizeof(mem), mem, sizeof(mem));
	int rc = multiboot2_parse(BASE, map, &bi);
	return rc;
}

/* The block GRUB's multiboot2 command gives under SeaBIOS, in its order. */
static void grub_like(void)
{
	begin();
	tag(MB2_TAG_CMDLINE, "/boot/lull.elf hz=100", 22);
	tag(MB2_TAG_LOADER_NAME, "GRUB 2.06-13+deb12u1", 21);
	uint32_t meminfo[2] = { 639, 130048 };
	tag(MB2_TAG_BASIC_MEMINFO, meminfo, sizeof(meminfo));
	uint8_t mmap[8 + 3 * 24] = { 0 };
	uint32_t hdr[2] = { 24, 0 };
	memcpy(mmap, hdr, 8);
	for (int i = 0; i < 3; i++) {
		uint64_t base = i * 0x100000ull, len = 0x100000;
		uint32_t type = i == 2 ? 2 : 1;
		memcpy(mmap + 8 + i * 24, &base, 8);
		memcpy(mmap + 16 + i * 24, &len, 8);
		memcpy(mmap + 24 + i * 24, &type, 4);
	}
	tag(MB2_TAG_MMAP, mmap, sizeof(mmap));
	uint8_t rsdp[ACPI_RSDP_V1_LEN] = "RSD PTR ";
	rsdp[15] = 0;                   /* revision 0 */
	tag(MB2_TAG_ACPI_OLD, rsdp, sizeof(rsdp));
	end();
}

static void test_grub_block_kept(void **state)
{
	(void)state;
	grub_like();
	assert_int_equal(parse(), 0);
	assert_string_equal(fuzz_output, "");
	assert_int_equal(bi.protocol, 2);
	assert_int_equal(bi.info_addr, BASE);
	assert_int_equal(bi.info_size, used);
	assert_string_equal(bi.cmdline, "/boot/lull.elf hz=100");
	assert_int_equal(bi.cmdline_size, 22);
	assert_int_equal(bi.cmdline_addr, BASE + 16);
	assert_true(bi.flags & MULTIBOOT_INFO_LOADER_NAME);
	assert_int_equal(bi.mem_lower, 639);
	assert_int_equal(bi.mem_upper, 130048);
	assert_int_equal(bi.mmap_count, 3);
	assert_int_equal(bi.mmap[1].addr, 0x100000);
	assert_int_equal(bi.mmap[2].type, 2);
	assert_true(bi.flags & BOOT_INFO_ACPI_RSDP);
	assert_int_equal(bi.rsdp_len, ACPI_RSDP_V1_LEN);
	assert_memory_equal(bi.rsdp, "RSD PTR ", 8);
	assert_false(bi.flags & (BOOT_INFO_FRAMEBUFFER | BOOT_INFO_EFI));
	fuzz_memory_unmap_all();
}

/* Tags of types lull does not read are skipped, whatever their size. */
static void test_unknown_tags_skipped(void **state)
{
	(void)state;
	begin();
	tag(999, "xyz", 3);                     /* size 11: the next tag at 16 */
	tag(MB2_TAG_CMDLINE, "a", 2);
	tag(21, "\x00\x00\x10\x00", 4);         /* load base address: not read */
	end();
	assert_int_equal(parse(), 0);
	assert_string_equal(bi.cmdline, "a");
	assert_int_equal(bi.cmdline_addr, BASE + 8 + 16 + 8);
	fuzz_memory_unmap_all();
}

static void test_truncated_and_overlong_tags(void **state)
{
	(void)state;
	/* A size under the tag header's 8 bytes: the walk stops there. */
	begin();
	tag(MB2_TAG_CMDLINE, "kept", 5);
	tag_sized(MB2_TAG_LOADER_NAME, 4, NULL, 0);
	tag(MB2_TAG_BASIC_MEMINFO, "\x80\x02\0\0\0\0\1\0", 8);
	end();
	assert_int_equal(parse(), -EINVAL);
	assert_string_equal(bi.cmdline, "kept");
	assert_false(bi.flags & MULTIBOOT_INFO_MEMORY);
	assert_non_null(strstr(fuzz_output, "has size 4"));
	fuzz_memory_unmap_all();

	/* A tag that runs past the block's total_size. */
	begin();
	tag(MB2_TAG_CMDLINE, "kept", 5);
	uint32_t payload = tag_sized(MB2_TAG_CMDLINE, 500, "x", 2);
	end();
	(void)payload;
	assert_int_equal(parse(), -EINVAL);
	assert_string_equal(bi.cmdline, "kept");
	assert_non_null(strstr(fuzz_output, "has size 500"));
	fuzz_memory_unmap_all();
}

static void test_missing_end_tag(void **state)
{
	(void)state;
	begin();
	tag(MB2_TAG_CMDLINE, "hz=100", 7);
	put32(0, used);                         /* total_size ends right after it */
	assert_int_equal(parse(), -EINVAL);
	assert_string_equal(bi.cmdline, "hz=100");
	assert_non_null(strstr(fuzz_output, "no end tag"));
	fuzz_memory_unmap_all();
}

static void test_short_payloads_dropped_alone(void **state)
{
	(void)state;
	begin();
	tag(MB2_TAG_CMDLINE, "abc", 3);                 /* no NUL */
	tag(MB2_TAG_BASIC_MEMINFO, "\1\0\0\0", 4);      /* half the sizes */
	tag(MB2_TAG_ACPI_NEW, "RSD PTR ", 8);           /* 8 of 36 bytes */
	tag(MB2_TAG_FRAMEBUFFER, "\0\0\0\0", 4);
	tag(MB2_TAG_EFI64, "\1\2\3\4", 4);
	tag(MB2_TAG_LOADER_NAME, "GRUB", 5);            /* and a good one after */
	end();
	assert_int_equal(parse(), -EINVAL);
	assert_false(bi.flags & (MULTIBOOT_INFO_CMDLINE | MULTIBOOT_INFO_MEMORY | BOOT_INFO_ACPI_RSDP |
	                         BOOT_INFO_FRAMEBUFFER | BOOT_INFO_EFI));
	assert_string_equal(bi.cmdline, "");
	assert_true(bi.flags & MULTIBOOT_INFO_LOADER_NAME);
	assert_int_equal(bi.warnings, 5);
	fuzz_memory_unmap_all();
}

/* The ACPI 2.0 copy wins over the 1.0 one in either order. */
static void test_new_rsdp_wins(void **state)
{
	(void)state;
	uint8_t v1[ACPI_RSDP_V1_LEN] = "RSD PTR ", v2[ACPI_RSDP_V2_LEN] = "RSD PTR ";
	v1[15] = 0;
	v2[15] = 2;
	for (int order = 0; order < 2; order++) {
		begin();
		if (order == 0) {
			tag(MB2_TAG_ACPI_OLD, v1, sizeof(v1));
			tag(MB2_TAG_ACPI_NEW, v2, sizeof(v2));
		} else {
			tag(MB2_TAG_ACPI_NEW, v2, sizeof(v2));
			tag(MB2_TAG_ACPI_OLD, v1, sizeof(v1));
		}
		end();
		assert_int_equal(parse(), 0);
		assert_int_equal(bi.rsdp_len, ACPI_RSDP_V2_LEN);
		assert_int_equal(bi.rsdp[15], 2);
		fuzz_memory_unmap_all();
	}
}

static void test_framebuffer_and_efi(void **state)
{
	(void)state;
	begin();
	uint8_t fb[MB2_FRAMEBUFFER_LEN + 8] = { 0 };    /* + RGB colour info */
	uint64_t addr = 0x80000000ull;
	uint32_t pitch = 4096, w = 1024, h = 768;
	memcpy(fb, &addr, 8);
	memcpy(fb + 8, &pitch, 4);
	memcpy(fb + 12, &w, 4);
	memcpy(fb + 16, &h, 4);
	fb[20] = 32;
	fb[21] = 1;
	/* x8r8g8b8, as OVMF's GOP gives: red at 16, green at 8, blue at 0. */
	memcpy(fb + MB2_FRAMEBUFFER_LEN, "\x10\x08\x08\x08\x00\x08", 6);
	tag(MB2_TAG_FRAMEBUFFER, fb, sizeof(fb));
	uint64_t st = 0x7F9EE018ull;
	uint32_t off = tag(MB2_TAG_EFI64, &st, 8);
	(void)off;
	end();
	assert_int_equal(parse(), 0);
	assert_true(bi.flags & BOOT_INFO_FRAMEBUFFER);
	assert_int_equal(bi.fb.addr, 0x80000000ull);
	assert_int_equal(bi.fb.pitch, 4096);
	assert_int_equal(bi.fb.width, 1024);
	assert_int_equal(bi.fb.height, 768);
	assert_int_equal(bi.fb.bpp, 32);
	assert_int_equal(bi.fb.type, 1);
	assert_int_equal(bi.fb.red_pos, 16);
	assert_int_equal(bi.fb.red_size, 8);
	assert_int_equal(bi.fb.green_pos, 8);
	assert_int_equal(bi.fb.blue_pos, 0);
	assert_int_equal(bi.fb.blue_size, 8);
	assert_true(bi.flags & BOOT_INFO_EFI);
	assert_int_equal(bi.efi_system_table, 0x7F9EE018ull);
	assert_int_equal(bi.efi_bits, 64);
	fuzz_memory_unmap_all();
}

/* An RGB framebuffer tag without its colour fields is dropped alone; an
 * EGA text one (BIOS GRUB in text mode) needs none. */
static void test_framebuffer_without_colour_fields(void **state)
{
	(void)state;
	uint8_t fb[MB2_FRAMEBUFFER_LEN] = { 0 };
	fb[20] = 32;
	fb[21] = BOOT_FB_RGB;
	begin();
	tag(MB2_TAG_FRAMEBUFFER, fb, sizeof(fb));
	end();
	assert_int_equal(parse(), -EINVAL);
	assert_false(bi.flags & BOOT_INFO_FRAMEBUFFER);
	assert_non_null(strstr(fuzz_output, "too short for its colour fields"));
	fuzz_memory_unmap_all();

	fb[20] = 16;
	fb[21] = BOOT_FB_EGA_TEXT;
	begin();
	tag(MB2_TAG_FRAMEBUFFER, fb, sizeof(fb));
	end();
	assert_int_equal(parse(), 0);
	assert_true(bi.flags & BOOT_INFO_FRAMEBUFFER);
	assert_int_equal(bi.fb.type, BOOT_FB_EGA_TEXT);
	fuzz_memory_unmap_all();
}

static void test_bad_memory_maps(void **state)
{
	(void)state;
	/* Entries of 20 bytes (Multiboot 1's size) are not Multiboot2's. */
	begin();
	uint32_t hdr[2] = { 20, 0 };
	uint8_t m[8 + 40] = { 0 };
	memcpy(m, hdr, 8);
	tag(MB2_TAG_MMAP, m, sizeof(m));
	end();
	assert_int_equal(parse(), -EINVAL);
	assert_false(bi.flags & MULTIBOOT_INFO_MEM_MAP);
	assert_int_equal(bi.mmap_count, 0);
	fuzz_memory_unmap_all();

	/* More entries than lull keeps: the first MULTIBOOT_MMAP_MAX, one line. */
	begin();
	static uint8_t big[8 + (MULTIBOOT_MMAP_MAX + 1) * 24];
	hdr[0] = 24;
	memcpy(big, hdr, 8);
	_Static_assert(sizeof(big) + 64 < sizeof(mem), "room for the big map");
	tag(MB2_TAG_MMAP, big, sizeof(big));
	end();
	assert_int_equal(parse(), -EINVAL);
	assert_int_equal(bi.mmap_count, MULTIBOOT_MMAP_MAX);
	assert_non_null(strstr(fuzz_output, "more than"));
	fuzz_memory_unmap_all();
}

static void test_unusable_blocks(void **state)
{
	(void)state;
	begin();
	end();
	put32(0, 4);                            /* total_size under its own header */
	assert_int_equal(parse(), -EINVAL);
	assert_non_null(strstr(fuzz_output, "no information block"));
	fuzz_memory_unmap_all();

	begin();
	end();
	fuzz_memory_load(BASE, sizeof(mem), mem, sizeof(mem));
	assert_int_equal(multiboot2_parse(BASE + 4, map, &bi), -EINVAL);        /* misaligned */
	assert_int_equal(multiboot2_parse(0xFFFFFFF8u, map, &bi), -EINVAL);     /* nothing there */
	assert_string_equal(bi.cmdline, "");
	fuzz_memory_unmap_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grub_block_kept),
		cmocka_unit_test(test_unknown_tags_skipped),
		cmocka_unit_test(test_truncated_and_overlong_tags),
		cmocka_unit_test(test_missing_end_tag),
		cmocka_unit_test(test_short_payloads_dropped_alone),
		cmocka_unit_test(test_new_rsdp_wins),
		cmocka_unit_test(test_framebuffer_and_efi),
		cmocka_unit_test(test_framebuffer_without_colour_fields),
		cmocka_unit_test(test_bad_memory_maps),
		cmocka_unit_test(test_unusable_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
