// SOURCES: kernel/lib/multiboot.c kernel/lib/format.c
/* tests/fuzz/fuzz_multiboot.c — libFuzzer harness for the check of the
 * Multiboot information block (kernel/lib/multiboot.c, multiboot_parse).
 *
 * The input is the loader's block (struct multiboot_info, 68 bytes: the
 * flags and the pointers) followed by the memory those pointers may lead
 * into, which lies from FUZZ_MB_BASE on; any other address is out of
 * reach.  Seeds (tests/fuzz/corpus/multiboot/, gen_multiboot_seeds.py) are
 * what QEMU's -kernel hands over: a command line, a loader name and a
 * memory map of 20-byte entries.  Checked: whatever was kept is what the
 * rest of the kernel may trust -- a command line that is a C string of the
 * size recorded, memory-map entries within the count. */
#include <string.h>
#include "multiboot.h"
#include "errno.h"
#include "fuzz_host.h"

#define FUZZ_MB_BASE    0x10000u        /* where GRUB and QEMU put such data */
#define FUZZ_MB_MAX     0x10000u        /* 64 KiB of it */

static const void *fake_map(uint32_t phys, uint32_t len)
{
	return fuzz_memory_map(phys, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct multiboot_info mbi;
	if (size < sizeof(mbi) || size - sizeof(mbi) > FUZZ_MB_MAX)
		return -1;
	memcpy(&mbi, data, sizeof(mbi));
	fuzz_memory_load(FUZZ_MB_BASE, FUZZ_MB_MAX, data + sizeof(mbi), size - sizeof(mbi));
	fuzz_forget_output();
	static struct boot_info bi;
	int rc = multiboot_parse(&mbi, FUZZ_MB_BASE - sizeof(mbi), fake_map, &bi);

	if (rc != 0 && rc != -EINVAL)
		fuzz_fail("multiboot_parse: an error outside lull's vocabulary");
	if ((rc == 0) != (bi.warnings == 0))
		fuzz_fail("multiboot_parse: result and warnings disagree");
	if (bi.flags & ~mbi.flags)
		fuzz_fail("multiboot_parse: a flag the loader did not set");
	if (bi.flags & MULTIBOOT_INFO_CMDLINE) {
		/* Read the whole string the kernel will read (cmdline_parse). */
		if (strlen(bi.cmdline) + 1 != bi.cmdline_size)
			fuzz_fail("multiboot_parse: command line size wrong");
	} else if (strcmp(bi.cmdline, "") != 0) {
		fuzz_fail("multiboot_parse: a dropped command line is not \"\"");
	}
	if (bi.mmap_count > MULTIBOOT_MMAP_MAX)
		fuzz_fail("multiboot_parse: more entries than it holds");
	fuzz_memory_unmap_all();
	return 0;
}
