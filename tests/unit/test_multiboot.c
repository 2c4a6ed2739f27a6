// SOURCES: kernel/lib/multiboot.c kernel/lib/format.c tests/fuzz/fuzz_host.c
/* Host tests for the check of the Multiboot information block
 * (kernel/lib/multiboot.c): QEMU's block is kept whole; each malformed
 * part is dropped with one line and the rest kept.  The fake memory and
 * kprintf are tests/fuzz/fuzz_host.c's, as tests/fuzz/fuzz_multiboot.c
 * uses them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "multiboot.h"
#include "errno.h"
#include "../fuzz/fuzz_host.h"

#define BASE 0x10000u
static uint8_t mem[256];
static struct multiboot_info mbi;
static struct boot_info bi;

static const void *map(uint32_t phys, uint32_t len) { return fuzz_memory_map(phys, len); }

/* The command line at BASE, then a memory map of `n` entries of `size`. */
static void build(const char *cmdline, unsigned n, uint32_t size)
{
	memset(mem, 0, sizeof(mem));
	memset(&mbi, 0, sizeof(mbi));
	strcpy((char *)mem, cmdline);
	uint32_t off = 32;
	for (unsigned i = 0; i < n; i++) {
		struct multiboot_mmap_entry e = { size, i * 0x100000ull, 0x100000, MULTIBOOT_MEMORY_AVAILABLE };
		memcpy(mem + off, &e, sizeof(e));
		off += 4 + size;
	}
	mbi.flags = MULTIBOOT_INFO_CMDLINE | MULTIBOOT_INFO_MEM_MAP;
	mbi.cmdline = BASE;
	mbi.mmap_addr = BASE + 32;
	mbi.mmap_length = off - 32;
	fuzz_forget_output();
}

static int parse(size_t memory_len)
{
	fuzz_memory_load(BASE, memory_len, mem, memory_len);
	return multiboot_parse(&mbi, BASE - sizeof(mbi), map, &bi);
}

static void test_qemu_block_kept(void **state)
{
	(void)state;
	build("/lull.elf hz=100", 3, MULTIBOOT_MMAP_ENTRY_MIN);
	assert_int_equal(parse(sizeof(mem)), 0);
	assert_string_equal(bi.cmdline, "/lull.elf hz=100");
	assert_int_equal(bi.cmdline_size, 17);
	assert_int_equal(bi.mmap_count, 3);
	assert_int_equal(bi.mmap[2].addr, 0x200000);
	assert_string_equal(fuzz_output, "");
	fuzz_memory_unmap_all();
}

/* A memory-map entry of size 0 (the old walk in `mem` advanced 4 bytes
 * and read the next "entry" from inside this one) or one running past the
 * map's end (read past it) ends the map with one line. */
static void test_bad_mmap_entries(void **state)
{
	(void)state;
	build("", 2, 0);
	mbi.mmap_length = 2 * sizeof(struct multiboot_mmap_entry);
	assert_int_equal(parse(sizeof(mem)), -EINVAL);
	assert_int_equal(bi.mmap_count, 0);
	assert_non_null(strstr(fuzz_output, "entry at offset 0 has size 0"));
	fuzz_memory_unmap_all();

	build("", 2, MULTIBOOT_MMAP_ENTRY_MIN);
	mbi.mmap_length -= 4;                   /* the last entry runs past the map */
	assert_int_equal(parse(sizeof(mem)), -EINVAL);
	assert_int_equal(bi.mmap_count, 1);
	assert_non_null(strstr(fuzz_output, "are no entry"));
	fuzz_memory_unmap_all();
}

static void test_unterminated_or_unreachable_strings(void **state)
{
	(void)state;
	build("", 1, MULTIBOOT_MMAP_ENTRY_MIN);
	memset(mem, 'x', 32);                   /* no NUL before memory ends */
	assert_int_equal(parse(32), -EINVAL);
	assert_false(bi.flags & MULTIBOOT_INFO_CMDLINE);
	assert_string_equal(bi.cmdline, "");
	assert_non_null(strstr(fuzz_output, "command line out of reach or unterminated"));
	fuzz_memory_unmap_all();

	build("hz=100", 1, MULTIBOOT_MMAP_ENTRY_MIN);
	mbi.cmdline = 0xFFFFFFF0;               /* nothing there */
	mbi.flags |= MULTIBOOT_INFO_MODS;
	mbi.mods_count = 1000;
	assert_int_equal(parse(sizeof(mem)), -EINVAL);
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(bi.mods_count, 1000); /* kept: smp.c must not reuse their pages */
	assert_false(bi.flags & MULTIBOOT_INFO_MODS);
	assert_int_equal(bi.mmap_count, 1);
	fuzz_memory_unmap_all();
}

static void test_memory_entry(void **state)
{
	(void)state;
	build("", 3, MULTIBOOT_MMAP_ENTRY_MIN);         /* 0-1 MiB, 1-2 MiB, 2-3 MiB */
	assert_int_equal(parse(sizeof(mem)), 0);
	assert_ptr_equal(boot_memory_entry(&bi, 0x100000, 0x100000), &bi.mmap[1]);
	assert_null(boot_memory_entry(&bi, 0xFFC00, 0x800));          /* spans two */
	assert_null(boot_memory_entry(&bi, 0x2FFC00, 0x800));         /* past the end */
	assert_null(boot_memory_entry(&bi, 0x200000, UINT64_MAX));    /* would wrap */
	bi.flags &= ~MULTIBOOT_INFO_MEM_MAP;
	assert_null(boot_memory_entry(&bi, 0, 1));
	fuzz_memory_unmap_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_block_kept),
		cmocka_unit_test(test_bad_mmap_entries),
		cmocka_unit_test(test_unterminated_or_unreachable_strings),
		cmocka_unit_test(test_memory_entry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
