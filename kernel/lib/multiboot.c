/* kernel/lib/multiboot.c — check the information block a Multiboot loader
 * hands over (include/multiboot.h) before anything trusts it.
 *
 * Spec: Multiboot Specification 0.6.96, section 3.3.  The block is a set
 * of flags and, behind them, pointers: a command line, a module list, a
 * memory map of entries whose `size` field says where the next one starts.
 * A loader bug (or a hand-made block) can point anywhere, leave a string
 * unterminated, or give an entry a size of 0 or one that runs past the
 * map.  Here every pointer is read through the map function, which says
 * whether the bytes are there; a part that fails is dropped with one line
 * and lull boots on without it.
 *
 * Portable: tests/unit/test_multiboot.c and tests/fuzz/fuzz_multiboot.c
 * run it on the host against a fake memory.
 */
#include "multiboot.h"
#include "errno.h"
#include "kprintf.h"
#include "kstring.h"

#define MULTIBOOT_MEM_LOWER_MAX 640     /* KiB: conventional memory ends at 640 KiB */

/* The length with its NUL of the string at `addr`, or 0 if it does not end
 * within MULTIBOOT_STRING_MAX bytes that are there.  Read a byte at a
 * time: the string may end just before memory does. */
static uint32_t string_size(multiboot_map_fn map, uint32_t addr)
{
	for (uint32_t i = 0; i < MULTIBOOT_STRING_MAX && addr <= UINT32_MAX - i; i++) {
		const char *c = map(addr + i, 1);
		if (!c)
			return 0;
		if (*c == '\0')
			return i + 1;
	}
	return 0;
}

static void drop(struct boot_info *out, uint32_t flag, const char *what)
{
	kprintf("multiboot: %s, ignored\n", what);
	out->flags &= ~flag;
	out->warnings++;
}

/* Copy the memory map's entries, stopping at the first malformed one. */
static void parse_mmap(const struct multiboot_info *mbi, multiboot_map_fn map, struct boot_info *out)
{
	const uint8_t *m = mbi->mmap_length ? map(mbi->mmap_addr, mbi->mmap_length) : NULL;
	if (!m) {
		drop(out, MULTIBOOT_INFO_MEM_MAP, "memory map out of reach or empty");
		return;
	}
	out->mmap_addr = mbi->mmap_addr;
	out->mmap_length = mbi->mmap_length;
	const uint32_t size_field = sizeof(((struct multiboot_mmap_entry *)0)->size);
	for (uint32_t off = 0; off < mbi->mmap_length;) {
		struct multiboot_mmap_entry e;
		uint32_t left = mbi->mmap_length - off;
		if (left < sizeof(e)) {
			kprintf("multiboot: memory map: %u bytes at its end are no entry, ignored\n", left);
			out->warnings++;
			return;
		}
		memcpy(&e, m + off, sizeof(e));         /* entries need not be aligned */
		if (e.size < MULTIBOOT_MMAP_ENTRY_MIN || e.size > left - size_field) {
			kprintf("multiboot: memory map: entry at offset %u has size %u, "
			        "the rest ignored\n", off, e.size);
			out->warnings++;
			return;
		}
		if (out->mmap_count == MULTIBOOT_MMAP_MAX) {
			kprintf("multiboot: memory map: more than %u entries, the rest ignored\n",
			        MULTIBOOT_MMAP_MAX);
			out->warnings++;
			return;
		}
		out->mmap[out->mmap_count++] = (struct boot_mmap_entry){ e.addr, e.len, e.type };
		off += size_field + e.size;
	}
}

int multiboot_parse(const struct multiboot_info *mbi, uint32_t info_addr,
                    multiboot_map_fn map, struct boot_info *out)
{
	memset(out, 0, sizeof(*out));
	out->cmdline = "";
	if (!mbi) {
		kprintf("multiboot: no information block, ignored\n");
		return -EINVAL;
	}
	out->protocol = 1;
	out->info_addr = info_addr;
	out->info_size = sizeof(*mbi);
	out->flags = mbi->flags;

	if (out->flags & MULTIBOOT_INFO_MEMORY) {
		out->mem_lower = mbi->mem_lower;
		out->mem_upper = mbi->mem_upper;
		if (mbi->mem_lower > MULTIBOOT_MEM_LOWER_MAX)
			drop(out, MULTIBOOT_INFO_MEMORY, "lower memory above 640 KiB");
	}
	if (out->flags & MULTIBOOT_INFO_CMDLINE) {
		out->cmdline_addr = mbi->cmdline;
		out->cmdline_size = string_size(map, mbi->cmdline);
		if (out->cmdline_size)
			out->cmdline = map(mbi->cmdline, out->cmdline_size);
		else
			drop(out, MULTIBOOT_INFO_CMDLINE, "command line out of reach or unterminated");
	}
	if (out->flags & MULTIBOOT_INFO_LOADER_NAME) {
		out->loader_name_addr = mbi->boot_loader_name;
		out->loader_name_size = string_size(map, mbi->boot_loader_name);
		if (!out->loader_name_size)
			drop(out, MULTIBOOT_INFO_LOADER_NAME, "loader name out of reach or unterminated");
	}
	if (out->flags & MULTIBOOT_INFO_MODS) {
		/* lull loads no modules; they matter only as memory not to reuse,
		 * so their count stays even if the list is unreadable (smp.c). */
		out->mods_count = mbi->mods_count;
		if (mbi->mods_count > MULTIBOOT_MODS_MAX ||
		    (mbi->mods_count && !map(mbi->mods_addr, mbi->mods_count * sizeof(struct multiboot_module))))
			drop(out, MULTIBOOT_INFO_MODS, "module list out of reach");
	}
	if (out->flags & MULTIBOOT_INFO_MEM_MAP)
		parse_mmap(mbi, map, out);
	return out->warnings ? -EINVAL : 0;
}

const struct boot_mmap_entry *boot_memory_entry(const struct boot_info *bi, uint64_t addr,
                                                uint64_t len)
{
	if (!(bi->flags & MULTIBOOT_INFO_MEM_MAP))
		return NULL;
	for (unsigned i = 0; i < bi->mmap_count; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];
		/* addr - e->addr, not addr + len: nothing here may wrap. */
		if (addr >= e->addr && addr - e->addr <= e->len && len <= e->len - (addr - e->addr))
			return e;
	}
	return NULL;
}
