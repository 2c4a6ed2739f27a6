/* kernel/main.c — from the boot loader to the shell.
 *
 * The order below is the whole init sequence: each step may use what the
 * steps above it set up, and nothing runs behind its back (no initcalls).
 * docs/boot.md walks through it.
 */
#include "drivers/acpi.h"
#include "cmdline.h"
#include "console.h"
#include "drivers/platform.h"
#include "floor.h"
#include "kprintf.h"
#include "time/clocksource.h"
#include "time/arch.h"
#include "time/calibrate.h"
#include "multiboot.h"
#include "multiboot2.h"
#include "time/watchdog.h"
#include "panic.h"
#include "arch/paging.h"
#include "arch/smp.h"
#include "smp_boot.h"
#include "selftest.h"
#include "shell/shell.h"
#include "drivers/timer/acpi_pm.h"
#include "drivers/timer/hpet.h"
#include "drivers/timer/lapic.h"
#include "drivers/timer/pit.h"
#include "drivers/timer/rtc.h"
#include "drivers/timer/tsc.h"
#include "time/tick.h"
#include "time/jiffies.h"
#include "lab.h"
#include "arch/trap.h"
#include "version.h"
#include "task.h"
#include "arch/x86.h"

struct boot_info boot_info;

/* RAM size from the loader: mem_upper counts KiB above 1 MiB. */
static uint64_t ram_bytes(void)
{
	if (boot_info.flags & MULTIBOOT_INFO_MEMORY)
		return (1024ULL + boot_info.mem_upper) * 1024;
	return 16ULL << 20;     /* no information: assume a modest 16 MiB */
}

/* Before paging every physical address is itself; only a range that
 * starts at 0 or wraps past 4 GiB is out of reach (multiboot_parse). */
static const void *boot_map(uint32_t phys, uint32_t len)
{
	return phys && len <= UINT32_MAX - phys ? (const void *)phys : NULL;
}

void kmain(uint32_t magic, uint32_t mbi_addr);

/* The clock a lab's stub counts its one line a second in (include/lab.h):
 * milliseconds, read without a lock, from the TSC where there is one.  Not
 * ktime_get_ns: it takes a lock, and a stub may run with the time core's
 * locks held (the jiffies lab's under jiffies_lock, the wheel lab's under
 * its wheel's).  Not jiffies where it can be helped: the jiffies lab's
 * stub is what counts them, and it counts too fast.  Without a TSC (a
 * 486), jiffies all the same; a change of HZ bends that clock once, at
 * most one line early or late. */
static uint64_t lab_tsc_khz;            /* 0: no TSC */

static uint32_t lab_clock_ms(void)
{
	if (lab_tsc_khz)
		return (uint32_t)(arch_cycles() / lab_tsc_khz);
	return jiffies * ((uint32_t)MSEC_PER_SEC / tick_hz);
}

static void lab_clock_start(void)
{
	const struct clocksource *tsc = clocksource_lookup("tsc");
	lab_tsc_khz = tsc ? tsc->freq_hz / MSEC_PER_SEC : 0;
	lab_set_clock(lab_clock_ms);
}

/* "boot: ready in N ms": lull's own part of the boot, from kmain's first
 * line to the prompt, by the TSC at its calibrated rate (no figure
 * without a calibrated TSC).  Under QEMU's -icount it is a count of
 * instructions, the same every boot (`make bench` reports it per machine). */
static void say_ready(uint64_t start_cycles)
{
	const struct clocksource *tsc = clocksource_lookup("tsc");
	char ms[FMT_FIXED_SIZE] = "";
	if (start_cycles && tsc && tsc->freq_hz) {
		uint64_t ns = clocksource_cycles_to_ns(arch_cycles() - start_cycles, tsc->freq_hz);
		ksnprintf(ms, sizeof(ms), " in ");
		fmt_fixed(ms + 4, sizeof(ms) - 4, ns / 10000, 2);
	}
	kprintf("boot: ready%s%s (%u warnings on the command line)\n", ms, ms[0] ? " ms" : "",
	        boot_cmdline.warnings);
}

/* The shell's task: run='s commands (which power off after the last),
 * then the prompt. */
static void shell_task(void *arg)
{
	UNUSED(arg);
	shell_run_boot_commands();
	shell_run();
}

void kmain(uint32_t magic, uint32_t mbi_addr)
{
	cpu_identify();                 /* CPUID, if the CPU has it: is there a TSC? */
	uint64_t start_cycles = arch_cycles();  /* lull's own boot starts (0: no TSC) */
	uart_init();                    /* COM1, polled: the first console sink */
	if (magic != MULTIBOOT2_BOOTLOADER_MAGIC)
		vga_init();             /* a BIOS boot: the text screen at once */
	if (magic != MULTIBOOT_BOOTLOADER_MAGIC && magic != MULTIBOOT2_BOOTLOADER_MAGIC) {
		kprintf("lull: not started by a Multiboot loader (EAX=0x%08x, expected 0x%08x or "
		        "0x%08x).\nlull: boot it with GRUB or qemu-system-i386 -kernel; halting.\n",
		        magic, MULTIBOOT_BOOTLOADER_MAGIC, MULTIBOOT2_BOOTLOADER_MAGIC);
		halt_forever();
	}
	const struct multiboot_info *mbi = boot_map(mbi_addr, sizeof(*mbi));
	gdt_init();                     /* our own flat segments */
	smp_boot_cpu_init();            /* this CPU's struct cpu, found through FS */
	idt_init();                     /* every vector -> boot/vectors.asm */
	pic_init();                     /* IRQs at 0x20..0x2F, all masked */
	kprintf("\n%s\n", lull_build_info);
	if (magic == MULTIBOOT2_BOOTLOADER_MAGIC)     /* check the loader's block */
		multiboot2_parse(mbi_addr, boot_map, &boot_info);
	else
		multiboot_parse(mbi, mbi_addr, boot_map, &boot_info);
	cmdline_parse(&boot_cmdline, boot_info.cmdline);  /* each option applies itself (cmdline.h) */
	paging_init(ram_bytes());       /* identity map; stray pointers fault */
	if (magic == MULTIBOOT2_BOOTLOADER_MAGIC && framebuffer_init(&boot_info) != 0)
		vga_init();             /* the loader's framebuffer (UEFI), else VGA text */
	acpi_init();                    /* RSDP, FADT, MADT, HPET tables (reads the BIOS area) */
	paging_unmap_null_page();       /* NULL dereferences fault from here on */
	pit_init();                     /* stop the firmware's 18.2 Hz tick; PIT devices */
	hpet_init();                    /* HPET counter + comparator, if the table says so */
	acpi_pm_init();                 /* ACPI PM timer, if the FADT has one: its rate check offered */
	tsc_init();                     /* TSC: offered for calibration */
	lapic_init();                   /* local APIC: virtual wire mode for the PIC */
	lapic_timer_init();             /* its timer: offered, against the TSC */
	calibrate_offered();            /* all three in the same windows; each registers */
	rtc_init();                     /* CMOS clock for `date` */
	floor_if_requested();           /* boot option floor: stop everything, halt */
	selftest_run_if_requested();    /* boot option selftest: KTAP, then exit */
	smp_init();                     /* start the other CPUs the MADT lists; they halt */
	tick_init();                    /* choose the tick device and mode; start ticking */
	lab_clock_start();              /* a lab's stub: its line at most once a second */
	watchdog_start();               /* compare the counters on interrupts that come anyway */
	tsc_refine_later();             /* a timer: measure the TSC again over 1 s */
	uart_enable_rx_irq();           /* serial input by interrupt */
	ps2_keyboard_init();            /* keyboard input by interrupt */
	sti();                          /* interrupts on: the system is live */
	say_ready(start_cycles);        /* "boot: ready in N ms" */
	sched_start(shell_task, NULL);  /* the shell as a task; this context, CPU 0's idle loop */
}
