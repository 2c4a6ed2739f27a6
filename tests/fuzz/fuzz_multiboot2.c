// SOURCES: kernel/lib/multiboot2.c kernel/lib/format.c
/* tests/fuzz/fuzz_multiboot2.c — libFuzzer harness for the check of the
 * Multiboot2 information block (kernel/lib/multiboot2.c, multiboot2_parse).
 *
 * The input is the block itself, placed at FUZZ_MB2_BASE in FUZZ_MB2_MAX
 * bytes of memory (zeros after the input); past them is out of reach, so
 * a larger total_size is a block that runs off the end of memory.  Seeds (tests/fuzz/corpus/multiboot2/,
 * gen_multiboot2_seeds.py) are GRUB-like blocks: command line, loader
 * name, memory sizes, a memory map, both RSDP copies, a framebuffer, an
 * EFI system table.  Checked: whatever was kept is what the rest of the
 * kernel may trust -- a command line that is a C string of the recorded
 * size inside the block, memory-map entries within the count, an RSDP of
 * one of the two lengths, the flags and the warnings agreeing with the
 * result. */
#include <string.h>
#include "multiboot2.h"
#include "errno.h"
#include "fuzz_host.h"

#define FUZZ_MB2_BASE   0x10000u
#define FUZZ_MB2_MAX    0x10000u        /* 64 KiB of it */

static const void *fake_map(uint32_t phys, uint32_t len)
{
	return fuzz_memory_map(phys, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MB2_MAX)
		return -1;
	fuzz_memory_load(FUZZ_MB2_BASE, FUZZ_MB2_MAX, data, size);
	fuzz_forget_output();
	static struct boot_info bi;
	int rc = multiboot2_parse(FUZZ_MB2_BASE, fake_map, &bi);

	if (rc != 0 && rc != -EINVAL)
		fuzz_fail("multiboot2_parse: an error outside lull's vocabulary");
	if ((rc == 0) != (bi.warnings == 0))
		fuzz_fail("multiboot2_parse: result and warnings disagree");
	if (bi.protocol != 2)
		fuzz_fail("multiboot2_parse: protocol not 2");
	if (bi.flags & MULTIBOOT_INFO_CMDLINE) {
		if (strlen(bi.cmdline) + 1 != bi.cmdline_size)
			fuzz_fail("multiboot2_parse: command line size wrong");
		if (bi.cmdline_addr < FUZZ_MB2_BASE ||
		    bi.cmdline_addr - FUZZ_MB2_BASE + bi.cmdline_size > bi.info_size)
			fuzz_fail("multiboot2_parse: command line outside the block");
	} else if (strcmp(bi.cmdline, "") != 0) {
		fuzz_fail("multiboot2_parse: a dropped command line is not \"\"");
	}
	if (bi.info_size > FUZZ_MB2_MAX)
		fuzz_fail("multiboot2_parse: kept a block larger than the memory");
	if (bi.mmap_count > MULTIBOOT_MMAP_MAX)
		fuzz_fail("multiboot2_parse: more entries than it holds");
	if ((bi.flags & BOOT_INFO_ACPI_RSDP) ? bi.rsdp_len != ACPI_RSDP_V1_LEN && bi.rsdp_len != ACPI_RSDP_V2_LEN
	                                     : bi.rsdp_len != 0)
		fuzz_fail("multiboot2_parse: RSDP length and flag disagree");
	if ((bi.flags & BOOT_INFO_EFI) && bi.efi_bits != 32 && bi.efi_bits != 64)
		fuzz_fail("multiboot2_parse: EFI table of no width");
	fuzz_memory_unmap_all();
	return 0;
}
