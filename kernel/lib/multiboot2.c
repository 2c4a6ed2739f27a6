/* kernel/lib/multiboot2.c — check the information block a Multiboot2
 * loader hands over (include/multiboot2.h) into struct boot_info.
 *
 * Spec: Multiboot2 Specification version 2.0, section 3.6.  The block is
 * read through the map function, which says whether its bytes are there;
 * every tag must lie inside the block's total_size and start on an 8-byte
 * boundary (3.6.1), and a tag that does not (a size under 8, a size that
 * runs past the block) ends the walk: the tags before it are kept, with
 * one "multiboot2: ..." line.  A block without its end tag is kept too,
 * with a line.  Tags of a type lull does not read are skipped, as the spec
 * says a kernel must.  A tag too short for what it must hold is dropped
 * alone.
 *
 * Portable: tests/unit/test_multiboot2.c and tests/fuzz/fuzz_multiboot2.c
 * run it on the host against a fake memory.
 */
#include "multiboot2.h"
#include "errno.h"
#include "kprintf.h"
#include "kstring.h"

#define MULTIBOOT_MEM_LOWER_MAX 640     /* KiB: conventional memory ends at 640 KiB */

static uint32_t le32(const uint8_t *p) { return (uint32_t)load_le(p, 4); }

/* A tag dropped alone: its type, its size (the payload's `len` and the
 * header), and why. */
static void warn_tag(struct boot_info *out, uint32_t type, uint32_t len, const char *why)
{
	kprintf("multiboot2: tag type %u of %u bytes: %s, ignored\n", type, len + MB2_TAG_HEADER_LEN,
	        why);
	out->warnings++;
}

/* A string tag (command line, loader name): its payload must hold a NUL. */
static uint32_t tag_string_size(const uint8_t *payload, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (payload[i] == '\0')
			return i + 1;
	return 0;
}

static void parse_mmap(const uint8_t *p, uint32_t len, uint32_t addr, struct boot_info *out)
{
	uint32_t entry_size = le32(p);
	if (entry_size < MB2_MMAP_ENTRY_MIN || entry_size % MB2_TAG_ALIGN) {
		kprintf("multiboot2: memory map entries of %u bytes, ignored\n", entry_size);
		out->warnings++;
		return;
	}
	out->flags |= MULTIBOOT_INFO_MEM_MAP;
	out->mmap_addr = addr + MB2_MMAP_HEADER_LEN;
	out->mmap_length = len - MB2_MMAP_HEADER_LEN;
	uint32_t n = out->mmap_length / entry_size;
	if (out->mmap_length % entry_size) {
		kprintf("multiboot2: memory map: %u bytes at its end are no entry, ignored\n",
		        out->mmap_length % entry_size);
		out->warnings++;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (out->mmap_count == MULTIBOOT_MMAP_MAX) {
			kprintf("multiboot2: memory map: more than %u entries, the rest ignored\n",
			        MULTIBOOT_MMAP_MAX);
			out->warnings++;
			return;
		}
		const uint8_t *e = p + MB2_MMAP_HEADER_LEN + i * entry_size;
		out->mmap[out->mmap_count++] =
		        (struct boot_mmap_entry){ load_le(e, 8), load_le(e + 8, 8), le32(e + 16) };
	}
}

/* The command line or the loader's name. */
static void parse_string_tag(uint32_t type, const uint8_t *p, uint32_t len, uint32_t addr,
                             struct boot_info *out)
{
	uint32_t n = tag_string_size(p, len);
	if (!n) {
		warn_tag(out, type, len, "an unterminated string");
	} else if (type == MB2_TAG_CMDLINE) {
		out->flags |= MULTIBOOT_INFO_CMDLINE;
		out->cmdline = (const char *)p;
		out->cmdline_addr = addr;
		out->cmdline_size = n;
	} else {
		out->flags |= MULTIBOOT_INFO_LOADER_NAME;
		out->loader_name_addr = addr;
		out->loader_name_size = n;
	}
}

static void parse_meminfo(const uint8_t *p, uint32_t len, struct boot_info *out)
{
	if (len < MB2_MEMINFO_LEN) {
		warn_tag(out, MB2_TAG_BASIC_MEMINFO, len, "too short for the memory sizes");
	} else if (le32(p) > MULTIBOOT_MEM_LOWER_MAX) {
		warn_tag(out, MB2_TAG_BASIC_MEMINFO, len, "lower memory above 640 KiB");
	} else {
		out->flags |= MULTIBOOT_INFO_MEMORY;
		out->mem_lower = le32(p);
		out->mem_upper = le32(p + 4);
	}
}

static void parse_framebuffer(const uint8_t *p, uint32_t len, struct boot_info *out)
{
	if (len < MB2_FRAMEBUFFER_LEN) {
		warn_tag(out, MB2_TAG_FRAMEBUFFER, len, "too short for a framebuffer");
		return;
	}
	if (p[21] == BOOT_FB_RGB && len < MB2_FRAMEBUFFER_RGB_LEN) {
		warn_tag(out, MB2_TAG_FRAMEBUFFER, len, "too short for its colour fields");
		return;
	}
	out->flags |= BOOT_INFO_FRAMEBUFFER;
	out->fb = (struct boot_framebuffer){
		.addr = load_le(p, 8), .pitch = le32(p + 8), .width = le32(p + 12),
		.height = le32(p + 16), .bpp = p[20], .type = p[21],
	};
	if (out->fb.type == BOOT_FB_RGB) {
		const uint8_t *c = p + MB2_FRAMEBUFFER_LEN;
		out->fb.red_pos = c[0], out->fb.red_size = c[1];
		out->fb.green_pos = c[2], out->fb.green_size = c[3];
		out->fb.blue_pos = c[4], out->fb.blue_size = c[5];
	}
}

/* The EFI system table's address, 32- or 64-bit. */
static void parse_efi(uint32_t type, const uint8_t *p, uint32_t len, struct boot_info *out)
{
	unsigned bits = type == MB2_TAG_EFI32 ? 32 : 64;
	if (len < (bits == 32 ? MB2_EFI32_LEN : MB2_EFI64_LEN)) {
		warn_tag(out, type, len, "too short for a pointer");
		return;
	}
	out->flags |= BOOT_INFO_EFI;
	out->efi_system_table = bits == 32 ? le32(p) : load_le(p, 8);
	out->efi_bits = bits;
}

/* A copy of the ACPI 1.0 or 2.0+ RSDP. */
static void parse_rsdp(uint32_t type, const uint8_t *p, uint32_t len, struct boot_info *out)
{
	uint32_t want = type == MB2_TAG_ACPI_OLD ? ACPI_RSDP_V1_LEN : ACPI_RSDP_V2_LEN;
	if (len < want) {
		warn_tag(out, type, len, "too short for an RSDP");
		return;
	}
	/* The new one wins, whichever order they come in. */
	if (type == MB2_TAG_ACPI_OLD && out->rsdp_len == ACPI_RSDP_V2_LEN)
		return;
	memcpy(out->rsdp, p, want);
	out->rsdp_len = want;
	out->flags |= BOOT_INFO_ACPI_RSDP;
}

/* One tag whose header and payload lie inside the block. */
static void parse_tag(uint32_t type, const uint8_t *p, uint32_t len, uint32_t addr,
                      struct boot_info *out)
{
	switch (type) {
	case MB2_TAG_CMDLINE:
	case MB2_TAG_LOADER_NAME:
		parse_string_tag(type, p, len, addr, out);
		break;
	case MB2_TAG_BASIC_MEMINFO:
		parse_meminfo(p, len, out);
		break;
	case MB2_TAG_MODULE:
		/* Only their number matters: smp.c must not reuse their pages. */
		out->flags |= MULTIBOOT_INFO_MODS;
		out->mods_count++;
		break;
	case MB2_TAG_MMAP:
		if (len < MB2_MMAP_HEADER_LEN || (out->flags & MULTIBOOT_INFO_MEM_MAP))
			warn_tag(out, type, len, len < MB2_MMAP_HEADER_LEN ? "too short" : "a second memory map");
		else
			parse_mmap(p, len, addr, out);
		break;
	case MB2_TAG_FRAMEBUFFER:
		parse_framebuffer(p, len, out);
		break;
	case MB2_TAG_EFI32:
	case MB2_TAG_EFI64:
		parse_efi(type, p, len, out);
		break;
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW:
		parse_rsdp(type, p, len, out);
		break;
	default:
		break;                  /* not read by lull: skipped (3.6) */
	}
}

int multiboot2_parse(uint32_t info_addr, multiboot_map_fn map, struct boot_info *out)
{
	memset(out, 0, sizeof(*out));
	out->cmdline = "";
	out->protocol = 2;
	const uint8_t *head = info_addr % MB2_TAG_ALIGN ? NULL : map(info_addr, MB2_INFO_HEADER_LEN);
	uint32_t total = head ? le32(head) : 0;
	const uint8_t *info = NULL;
	if (head && total >= MB2_INFO_HEADER_LEN && total <= MB2_INFO_MAX)
		info = map(info_addr, total);
	if (!info) {
		kprintf("multiboot2: no information block at 0x%08x (%u bytes), ignored\n", info_addr,
		        total);
		out->warnings++;
		return -EINVAL;
	}
	out->info_addr = info_addr;
	out->info_size = total;
	uint32_t off = MB2_INFO_HEADER_LEN;
	bool ended = false;
	while (!ended && total - off >= MB2_TAG_HEADER_LEN) {
		uint32_t type = le32(info + off), size = le32(info + off + 4);
		if (size < MB2_TAG_HEADER_LEN || size > total - off) {
			kprintf("multiboot2: tag at offset %u has size %u (%u bytes left), the rest "
			        "ignored\n", off, size, total - off);
			out->warnings++;
			return -EINVAL;
		}
		if (type == MB2_TAG_END) {
			ended = true;
			break;
		}
		parse_tag(type, info + off + MB2_TAG_HEADER_LEN, size - MB2_TAG_HEADER_LEN,
		          info_addr + off + MB2_TAG_HEADER_LEN, out);
		/* The next tag starts at the next 8-byte boundary; padding past
		 * the block's end means this was the last. */
		uint32_t next = size + (MB2_TAG_ALIGN - size % MB2_TAG_ALIGN) % MB2_TAG_ALIGN;
		if (next > total - off)
			break;
		off += next;
	}
	if (!ended) {
		kprintf("multiboot2: no end tag in %u bytes, kept what came before\n", total);
		out->warnings++;
	}
	return out->warnings ? -EINVAL : 0;
}
