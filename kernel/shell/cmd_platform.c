/* kernel/shell/cmd_platform.c — shell commands that show what the platform
 * drivers found: `acpi` (the firmware's tables) and `date` (the CMOS
 * clock).  `cpus`, the processors kernel/smp_boot.c started, is in
 * cmd_smp.c.
 *
 * The drivers only collect: acpi_init keeps the list of tables and the
 * values lull uses (struct acpi_info), rtc_read returns the time.  Printing
 * them for a person is the shell's business, a floor above.
 */
#include "shell/commands.h"
#include "shell/shell.h"
#include "drivers/acpi.h"
#include "drivers/timer/rtc.h"
#include "kprintf.h"

int cmd_acpi(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	if (!acpi_table_at(0)) {
		kprintf("acpi: no ACPI tables (this machine has none, e.g. -machine isapc)\n");
		return 0;
	}
	kprintf("  sig   address     length  rev  OEM     checksum\n");
	const struct acpi_table *t;
	for (unsigned i = 0; (t = acpi_table_at(i)); i++)
		kprintf("  %-4s  0x%08x  %6u  %3u  %-6s  %s\n", t->sig, t->addr, t->length,
		        t->revision, t->oem_id, t->checksum_ok ? "ok" : "bad");

	kprintf("what lull uses:\n");
	if (acpi.pm_timer_port)
		kprintf("  PM timer     port 0x%x, %u-bit\n", acpi.pm_timer_port, acpi.pm_timer_32bit ? 32 : 24);
	else
		kprintf("  PM timer     none\n");
	if (acpi.has_hpet)
		kprintf("  HPET         0x%08llx, min periodic tick %u\n",
		        (unsigned long long)acpi.hpet_base, acpi.hpet_min_tick);
	else
		kprintf("  HPET         none\n");
	if (acpi.has_madt)
		kprintf("  local APIC   0x%08x, %u CPU(s) enabled%s\n  I/O APIC     0x%08x, ISA IRQ0 -> GSI %u\n",
		        acpi.lapic_base, acpi.cpu_count, acpi.pcat_compat ? ", 8259 PICs too" : "",
		        acpi.ioapic_base, acpi.irq0_gsi);
	else
		kprintf("  local APIC   no MADT\n");
	if (acpi.s5_valid)
		kprintf("  S5 (off)     SLP_TYPa %u, SLP_TYPb %u; PM1a_CNT 0x%x, PM1b_CNT 0x%x\n",
		        acpi.s5_slp_typa, acpi.s5_slp_typb, acpi.pm1a_cnt_port, acpi.pm1b_cnt_port);
	else
		kprintf("  S5 (off)     not found\n");
	if (acpi.reset_valid)
		kprintf("  reset        %s 0x%llx <- 0x%02x%s\n",
		        acpi.reset_space == ACPI_SPACE_IO ? "port" : "address",
		        (unsigned long long)acpi.reset_addr, acpi.reset_value,
		        acpi.reset_space == ACPI_SPACE_IO ? "" : " (not I/O: unsupported)");
	else
		kprintf("  reset        not advertised\n");
	if (acpi.fadt_revision >= ACPI_FADT_REV_BOOT_ARCH)
		kprintf("  boot arch    0x%04x (%slegacy devices, %s8042)\n", acpi.boot_arch,
		        acpi.boot_arch & ACPI_BOOT_LEGACY_DEVICES ? "" : "no ",
		        acpi.boot_arch & ACPI_BOOT_8042 ? "" : "no ");
	else
		kprintf("  boot arch    not in FADT revision %u\n", acpi.fadt_revision);
	if (acpi.century_reg)
		kprintf("  RTC century  CMOS register 0x%02x\n", acpi.century_reg);
	else
		kprintf("  RTC century  none\n");
	return 0;
}

int cmd_date(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	struct rtc_time t;
	int rc = rtc_read(&t);
	if (rc) {
		kprintf("error: the CMOS clock %s\n", rtc_error_text(rc));
		return rc;
	}
	kprintf("%04u-%02u-%02uT%02u:%02u:%02u\n", t.year, t.month, t.day, t.hour, t.minute, t.second);
	return 0;
}
