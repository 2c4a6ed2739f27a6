/* drivers/platform/acpi.c — ACPI's hardware side: how the tables are
 * reached, and the two writes lull makes through what they say (S5 for
 * poweroff, the reset register).
 *
 * Spec: ACPI 6.5, 4.8.3.2.1 (PM1 control: SLP_TYPx, SLP_EN), 7.4.2 (\_S5),
 * 4.8.3.6 (the reset register).  Finding and checking the tables is the
 * portable drivers/platform/acpi_tables.c; this file hands it the identity
 * map.
 */
#include "drivers/acpi.h"
#include "errno.h"
#include "kprintf.h"
#include "multiboot.h"
#include "arch/paging.h"
#include "arch/x86.h"

#define PM1_CNT_SLP_TYP_SHIFT   10          /* SLP_TYPx: bits 10-12 */
#define PM1_CNT_SLP_EN          (1u << 13)  /* write 1: enter state SLP_TYPx */
/* After writing SLP_EN or the reset register, give the machine ~1 s (on
 * real hardware, ~1 us per io_wait) to go away before calling it failed. */
#define ACPI_SETTLE_SPINS       1000000

/* Tables are read in place through the identity map.  Page 0 is still
 * mapped when acpi_init runs, so the BIOS data area is readable; physical
 * address 0 itself means "absent" in every ACPI pointer.  Above the first
 * MiB (the BIOS areas, which the memory map need not list), a table must
 * lie inside one entry of the loader's memory map -- firmware puts them in
 * reserved or ACPI memory -- so a length that runs past the end of memory
 * is refused instead of mapping whatever is, or is not, there. */
#define ACPI_BIOS_AREA_END      0x100000

static const void *acpi_map(uint64_t phys, uint32_t len)
{
	if (phys == 0 || phys > UINT32_MAX || len > UINT32_MAX - (uint32_t)phys)
		return NULL;
	if (phys + len > ACPI_BIOS_AREA_END && (boot_info.flags & MULTIBOOT_INFO_MEM_MAP) &&
	    !boot_memory_entry(&boot_info, phys, len))
		return NULL;
	return paging_map_ram((uint32_t)phys, len);
}

int acpi_init(void)
{
	if (boot_info.flags & BOOT_INFO_ACPI_RSDP)
		return acpi_parse_from(acpi_map, boot_info.rsdp, boot_info.rsdp_len);
	return acpi_parse(acpi_map);
}

/* Wait for a write that ends the machine to take effect. */
static void acpi_settle(void)
{
	for (unsigned i = 0; i < ACPI_SETTLE_SPINS; i++)
		io_wait();
}

/* Put sleep type `typ` into a PM1 control register, keeping its other bits. */
static void pm1_cnt_write(uint16_t port, uint8_t typ, uint16_t enable)
{
	if (!port)
		return;
	uint16_t v = inw(port) & ~(ACPI_SLP_TYP_MAX << PM1_CNT_SLP_TYP_SHIFT | PM1_CNT_SLP_EN);
	outw(port, v | typ << PM1_CNT_SLP_TYP_SHIFT | enable);
}

int acpi_poweroff(void)
{
	if (!acpi.has_fadt || !acpi.s5_valid || !acpi.pm1a_cnt_port)
		return -ENODEV;
	/* Sleep types first, PM1a before PM1b (7.4.2), then SLP_EN in both. */
	pm1_cnt_write(acpi.pm1a_cnt_port, acpi.s5_slp_typa, 0);
	pm1_cnt_write(acpi.pm1b_cnt_port, acpi.s5_slp_typb, 0);
	pm1_cnt_write(acpi.pm1a_cnt_port, acpi.s5_slp_typa, PM1_CNT_SLP_EN);
	pm1_cnt_write(acpi.pm1b_cnt_port, acpi.s5_slp_typb, PM1_CNT_SLP_EN);
	acpi_settle();
	kprintf("acpi: still running after entering S5\n");
	return -EINVAL;
}

int acpi_reset(void)
{
	if (!acpi.reset_valid)
		return -ENODEV;
	if (acpi.reset_space != ACPI_SPACE_IO || acpi.reset_addr > UINT16_MAX) {
		kprintf("acpi: reset register is not an I/O port (space %u); unsupported\n", acpi.reset_space);
		return -ENODEV;
	}
	kprintf("acpi: reset register: writing 0x%02x to port 0x%x\n",
	        acpi.reset_value, (unsigned)acpi.reset_addr);
	outb((uint16_t)acpi.reset_addr, acpi.reset_value);
	acpi_settle();
	kprintf("acpi: still running after writing the reset register\n");
	return -EINVAL;
}
