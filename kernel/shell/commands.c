/* kernel/shell/commands.c — the shell's command table, and the commands that
 * belong to no subsystem (help, version, cmdline, mem, reboot, poweroff,
 * fault).  The others live next door in cmd_*.c, one topic a file
 * (include/shell/commands.h says which file holds which); they are listed
 * here so that this one table is the whole shell.
 */
#include "shell/shell.h"
#include "shell/commands.h"
#include "shell/args.h"
#include "cmdline.h"
#include "kprintf.h"
#include "kstring.h"
#include "multiboot.h"
#include "multiboot2.h"
#include "power.h"
#include "version.h"
#include "arch/smp.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "console.h"
#include "time/slack.h"        /* SLACK_PERCENT_MAX, in slack's and timerload's usage */
#include "time/trace.h"        /* TRACE_MAX_S, in trace's */

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);
static int cmd_cmdline(int argc, char **argv);
static int cmd_mem(int argc, char **argv);
static int cmd_reboot(int argc, char **argv);
static int cmd_poweroff(int argc, char **argv);
static int cmd_fault(int argc, char **argv);

const struct shell_command shell_commands[] = {
	{ "help",     "[COMMAND]",    "list commands, or one command's usage and what it does", cmd_help },
	{ "version",  "",             "kernel version and build settings",      cmd_version },
	{ "cmdline",  "",             "boot command line, parsed options, known options", cmd_cmdline },
	{ "mem",      "",             "memory map from the boot loader",        cmd_mem },
	{ "reboot",   "",             "reset the machine",                      cmd_reboot },
	{ "poweroff", "",             "power off (ACPI S5, or QEMU's debug exit)", cmd_poweroff },
	{ "acpi",     "",             "ACPI tables found and what lull uses from them", cmd_acpi },
	{ "date",     "",             "date and time from the CMOS clock (ISO 8601)", cmd_date },
	{ "uptime",   "",             "time since boot (clocksource), jiffies, HZ", cmd_uptime },
	{ "clocksource", "[NAME]",    "list counters (* = in use), or switch to NAME", cmd_clocksource },
	{ "clockevent", "[NAME]",     "list timer interrupt devices (* = tick), or switch the tick to NAME", cmd_clockevent },
	{ "timers",   "",             "pending wheel timers and hrtimers, per CPU", cmd_timers },
	{ "wheel",    "[cascade|level]", "which timer wheel files timers, or switch (pending timers move over)", cmd_wheel },
	{ "spawn",    "PROGRAM [ARGS] [cpu N]", "start a built-in program as a task in ring 3, with up to four words for it (docs/tasks.md, \"Programs\")", cmd_spawn },
	{ "ps",       "",             "tasks: CPU, state, CPU time both ways (precise and tick-sampled), switches", cmd_ps },
	{ "top",      "[SECONDS" RANGE(1, TOP_MAX_S) "]",
	  "each second, each task's share of the CPU, precise and as the tick billed it; Ctrl-C stops", cmd_top },
	{ "kill",     "ID",           "stop task ID (see ps)", cmd_kill },
	{ "slice",    "[MS" RANGE(SLICE_MIN_MS, SLICE_MAX_MS) "]", "show or set the time slice (rounded down to jiffies)", cmd_slice },
	{ "preempt",  "[on|off]",     "show or set whether a woken task takes the CPU from a running one", cmd_preempt },
	{ "cpus",     "",             "one line per CPU: APIC ID, idle or busy, its tick, wakeups since reset", cmd_cpus },
	{ "irqs",     "",             "interrupt counts per line, like /proc/interrupts", cmd_irqs },
	{ "sleep",    "MS" RANGE(0, SLEEP_MAX_MS), "sleep MS milliseconds on a timer; Ctrl-C stops", cmd_sleep },
	{ "hz",       "[100|250|1000]", "show the tick rate, or change it at runtime", cmd_hz },
	{ "tick",     "[periodic|dyntick|tickless]", "show or switch the tick mode", cmd_tick },
	{ "busy",     "SECONDS" RANGE(1, BUSY_MAX_S) " [CPU]",
	              "spin with the tick running (Ctrl-C stops); on another CPU, in the background", cmd_busy },
	{ "timeron",  "CPU MS" RANGE(1, TIMERON_MAX_MS),
	              "arm an hrtimer and a wheel timer for CPU MS ms ahead; where and when they ran", cmd_timeron },
	{ "stress",   "SECONDS" RANGE(1, STRESS_MAX_S),
	              "every CPU, its timer callbacks and its interrupts arm and cancel shared timers; "
	              "check none lost, doubled, early or late", cmd_stress },
	{ "dyntick",  "[on|off|reset]", "the 2005 patch's status lines, then each mode's skip counters for all CPUs and each; on = dyntick, off = periodic, reset = wakeups reset", cmd_dyntick },
	{ "wakeups",  "[reset|CPU]",  "why the CPUs woke (or CPU N), per cause, since the last reset (like powertop)", cmd_wakeups },
	{ "idle",     "SECONDS" RANGE(1, IDLE_MAX_S),
	              "idle, then wakeups, sleep lengths, % halted: all CPUs, and each", cmd_idle },
	{ "latency",  "COUNT" RANGE(1, LATENCY_MAX_COUNT) " PERIOD_US" RANGE(LATENCY_MIN_US, LATENCY_MAX_US) " [breakdown]",
	              "cyclictest: COUNT wakeups every PERIOD_US; breakdown: where the time goes", cmd_latency },
	{ "trace",    "SECONDS" RANGE(1, TRACE_MAX_S) " [tasks]",
	              "record timer interrupts and idle entries/exits (and task switches), print CSV", cmd_trace },
	{ "every",    "[MS" RANGE(1, EVERY_MAX_MS) "|off]", "a periodic wheel timer every MS ms, or stop it", cmd_every },
	{ "power",    "[SECONDS" RANGE(1, IDLE_MAX_S) "]",
	              "idle SECONDS (default " SHELL_SPELL(POWER_DEFAULT_S) "), then the 2005 article's laptop's "
	              "idle power at that wakeup rate: a model", cmd_power },
	{ "alarm",    "single|multiple|simultaneous|order|zero|negative|sleep|interrupt", "Pintos' alarm-clock tests on the timer wheel's sleepers", cmd_alarm },
	{ "keytimer", "MS" RANGE(1, KEYTIMER_MAX_MS),
	              "the next key's interrupt arms an MS ms timer; report when it fires", cmd_keytimer },
	{ "slack",    "[exact|PERCENT" RANGE(0, SLACK_PERCENT_MAX) "|default|piggyback on|off]",
	              "default timer slack (a window of PERCENT of how far ahead a timer is armed); "
	              "piggybacking on wakeups", cmd_slack },
	{ "timerload", "N" RANGE(1, TIMERLOAD_MAX_TIMERS) " MIN_MS" RANGE(1, TIMERLOAD_MAX_MS)
	              " MAX_MS" RANGE(MIN_MS, TIMERLOAD_MAX_MS) " SECONDS" RANGE(1, TIMERLOAD_MAX_S)
	              " [exact|normal|background|deferrable|PERCENT" RANGE(0, SLACK_PERCENT_MAX) "]"
	              " [wheel] [cpu=C] [seed=S" RANGE(1, TIMERLOAD_MAX_SEED) "]",
	              "N periodic timers (hrtimers, or wheel timers), periods MIN..MAX ms, for SECONDS idle: "
	              "wakeups against the optimum", cmd_timerload },
	{ "watchdog", "[check]",      "the clocksource watchdog: reference, checks, each counter's skew; check now", cmd_watchdog },
	{ "inject",   "hpet-past|lost-tick N" RANGE(1, INJECT_MAX_TICKS) "|spurious-tick N" RANGE(1, INJECT_MAX_SPURIOUS)
	              "|pm-glitch|tsc-step +-MS" RANGE(1, INJECT_MAX_MS) "|tsc-skew +-PPM" RANGE(1, INJECT_MAX_PPM)
	              "|clocksource-stall|irq-storm MS" RANGE(1, INJECT_MAX_MS) "|late-wakeup MS" RANGE(1, INJECT_MAX_MS)
	              "|idle-race",
	              "make the timer hardware lie on purpose, then check that every timer fired once, none early", cmd_inject },
	{ "fault",    "ud|gp|pf|null|de|stack", "raise a CPU exception, or overflow the stack, on purpose (shows the panic report)", cmd_fault },
};
const unsigned shell_command_count = ARRAY_SIZE(shell_commands);

/* `help`: one entry per command, "  NAME USAGE" and then what it does from
 * HELP_TEXT_COLUMN on, each wrapped to HELP_WIDTH, never cut: a usage too
 * long for the line breaks after a '|' or at a space and goes on under its
 * first word, and what it does starts on a line of its own if the usage
 * reaches past HELP_USAGE_END. */
#define HELP_INDENT         2           /* "  NAME" */
#define HELP_TEXT_COLUMN    31          /* where what a command does begins */
#define HELP_USAGE_END      (HELP_TEXT_COLUMN - 1)
#define HELP_WIDTH          80          /* a terminal's line */

static void help_spaces(unsigned n)
{
	kprintf("%*s", (int)n, "");
}

/* Print `text` with the cursor at column `col`, wrapped at HELP_WIDTH
 * with continuation lines starting at column `indent`: broken at a space
 * (dropped), or, in a usage (`bars`), after a '|'.  A piece longer than a
 * line goes on it whole.  Returns the column the cursor is at after it. */
static unsigned help_wrap(const char *text, unsigned col, unsigned indent, bool bars)
{
	bool space = false;                     /* a space before the next piece */
	while (*text) {
		size_t n = 0;
		while (text[n] && text[n] != ' ' && !(bars && n > 0 && text[n - 1] == '|'))
			n++;
		if (col + space + n > HELP_WIDTH && col > indent) {
			kprintf("\n");
			help_spaces(indent);
			col = indent;
			space = false;
		}
		kprintf("%s%.*s", space ? " " : "", (int)n, text);
		col += space + (unsigned)n;
		text += n;
		space = *text == ' ';
		while (*text == ' ')
			text++;
	}
	return col;
}

static void help_entry(const struct shell_command *c)
{
	help_spaces(HELP_INDENT);
	kprintf("%s", c->name);
	unsigned col = HELP_INDENT + (unsigned)strlen(c->name);
	if (c->usage[0]) {
		kprintf(" ");
		col = help_wrap(c->usage, col + 1, col + 1, true);
	}
	if (col > HELP_USAGE_END) {             /* no room: what it does goes below */
		kprintf("\n");
		col = 0;
	}
	help_spaces(HELP_TEXT_COLUMN - col);
	help_wrap(c->help, HELP_TEXT_COLUMN, HELP_TEXT_COLUMN, false);
	kprintf("\n");
}

/* help [COMMAND]: every command, or one command's usage line, unwrapped
 * (as the shell prints it for malformed words), and what it does. */
static int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return SHELL_USAGE;
	if (argc == 2) {
		const struct shell_command *c = shell_find_command(argv[1]);
		if (!c) {
			kprintf("error: help: no command '%s' (try 'help')\n", argv[1]);
			return -ENOENT;
		}
		kprintf("usage: %s%s%s\n", c->name, c->usage[0] ? " " : "", c->usage);
		kprintf("  %s\n", c->help);
		return 0;
	}
	for (unsigned i = 0; i < shell_command_count; i++)
		help_entry(&shell_commands[i]);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	kprintf("%s\n", lull_build_info);
	return 0;
}

static int cmd_cmdline(int argc, char **argv)
{
	static const char *const status_text[] = {
		[CMDLINE_OK] = "ok", [CMDLINE_UNKNOWN] = "unknown, ignored",
		[CMDLINE_BAD_VALUE] = "bad value, ignored", [CMDLINE_MALFORMED] = "malformed, ignored",
	};
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	const struct cmdline *cl = &boot_cmdline;
	kprintf("command line: %s\n", cl->text);
	kprintf("kernel image: %s\n", cl->image ? cl->image : "(not given)");
	if (!cl->nargs)
		kprintf("options: none\n");
	for (unsigned i = 0; i < cl->nargs; i++) {
		const struct cmdline_arg *a = &cl->args[i];
		kprintf("  %s%s%s  (%s)\n", a->key, a->value ? "=" : "", a->value ? a->value : "",
		        status_text[a->status]);
	}
	kprintf("known options:\n");
	for (const struct boot_option *o = cmdline_options_begin(); o < cmdline_options_end(); o++)
		kprintf("  %-14s %s\n", o->name, o->help);
	return 0;
}

static int cmd_mem(int argc, char **argv)
{
	static const char *const types[] = {
		[1] = "usable", [2] = "reserved", [3] = "ACPI reclaimable",
		[4] = "ACPI NVS", [5] = "bad memory",
	};
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	const struct boot_info *bi = &boot_info;
	kprintf("boot loader: Multiboot%s", bi->protocol == 2 ? "2" : "");
	if (bi->flags & MULTIBOOT_INFO_LOADER_NAME)     /* checked: it ends within its size */
		kprintf(", %s", (const char *)bi->loader_name_addr);
	if (bi->flags & BOOT_INFO_ACPI_RSDP)
		kprintf(", ACPI %s RSDP copy", bi->rsdp_len == ACPI_RSDP_V2_LEN ? "2.0" : "1.0");
	if (bi->flags & BOOT_INFO_EFI)
		kprintf(", %u-bit EFI system table at 0x%llx", bi->efi_bits,
		        (unsigned long long)bi->efi_system_table);
	kprintf("\n");
	if (bi->flags & BOOT_INFO_FRAMEBUFFER) {
		static const char *const fb_types[] = {
			[BOOT_FB_INDEXED] = "indexed", [BOOT_FB_RGB] = "RGB", [BOOT_FB_EGA_TEXT] = "EGA text",
		};
		const struct boot_framebuffer *f = &bi->fb;
		kprintf("framebuffer: %ux%u, %u bits a pixel, %s, at 0x%llx\n", f->width, f->height,
		        f->bpp, f->type < ARRAY_SIZE(fb_types) ? fb_types[f->type] : "unknown type",
		        (unsigned long long)f->addr);
	}
	if (bi->flags & MULTIBOOT_INFO_MEMORY)
		kprintf("lower memory: %u KiB, upper memory: %u KiB\n", bi->mem_lower, bi->mem_upper);
	if (!(bi->flags & MULTIBOOT_INFO_MEM_MAP)) {
		kprintf("no memory map from the boot loader\n");
		return 0;
	}
	uint64_t usable = 0;
	for (unsigned i = 0; i < bi->mmap_count; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];
		const char *t = e->type < ARRAY_SIZE(types) && types[e->type] ? types[e->type] : "other";
		kprintf("  0x%016llx-0x%016llx  %-16s %8llu KiB\n", (unsigned long long)e->addr,
		        (unsigned long long)(e->addr + e->len - 1), t, (unsigned long long)(e->len >> 10));
		if (e->type == MULTIBOOT_MEMORY_AVAILABLE)
			usable += e->len;
	}
	kprintf("usable RAM: %llu KiB\n", (unsigned long long)(usable >> 10));
	return 0;
}

static int cmd_reboot(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	machine_reboot();
}

static int cmd_poweroff(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	machine_poweroff();
}

/* An address nothing is mapped at (kernel/arch/paging.c maps RAM and device
 * windows only). */
#define FAULT_UNMAPPED_ADDR 0xDEAD0000u
/* A selector past the end of our 3-entry GDT: loading it is a #GP. */
#define FAULT_BAD_SELECTOR  0x1230
/* Page 0, unmapped at boot by paging_unmap_null_page(): a NULL pointer. */
#define FAULT_NULL_ADDR     0x0u

/* Each frame of the dive: written whole, so it overwrites what it covers. */
#define FAULT_STACK_FRAME   256
/* Stop this deep into the guard: the rest holds the frames of the
 * interrupt whose exit finds the damage. */
#define FAULT_STACK_INTO_GUARD  64

/* Recurse until the stack reaches `stop`, then wait for interrupts with
 * the stack that deep: the first one's exit check panics. */
static __attribute__((noinline)) unsigned stack_dive(uintptr_t stop)
{
	volatile uint8_t frame[FAULT_STACK_FRAME];
	for (unsigned i = 0; i < FAULT_STACK_FRAME; i++)
		frame[i] = (uint8_t)i;
	if ((uintptr_t)frame > stop)
		return stack_dive(stop) + frame[0];     /* not a tail call */
	while (!console_interrupted())
		sti_hlt();
	return 0;
}

static int cmd_fault(int argc, char **argv)
{
	if (argc != 2)
		return SHELL_USAGE;
	const char *k = argv[1];
	if (strcmp(k, "ud") == 0) {
		__asm__ __volatile__("ud2");
	} else if (strcmp(k, "gp") == 0) {
		__asm__ __volatile__("mov %0, %%ds" :: "r"(FAULT_BAD_SELECTOR));
	} else if (strcmp(k, "pf") == 0) {
		(void)*(volatile uint32_t *)FAULT_UNMAPPED_ADDR;
	} else if (strcmp(k, "null") == 0) {
		/* The empty asm hides the 0 from GCC.  A load it can see is from
		 * NULL is undefined behaviour: at -O2 it keeps the volatile load
		 * but puts ud2 after it and drops the rest, so "did not fault"
		 * could never print (-fisolate-erroneous-paths-dereference). */
		uint32_t null = FAULT_NULL_ADDR;
		__asm__ __volatile__("" : "+r"(null));
		(void)*(volatile uint32_t *)null;
	} else if (strcmp(k, "stack") == 0) {
		uintptr_t guard_top = (uintptr_t)this_cpu()->stack_guard + STACK_GUARD_BYTES;
		kprintf("fault: growing CPU %u's stack into its guard (%u-byte frames)\n",
		        this_cpu()->index, FAULT_STACK_FRAME);
		stack_dive(guard_top - FAULT_STACK_INTO_GUARD);
	} else if (strcmp(k, "de") == 0) {
		volatile uint32_t zero = 0;
		__asm__ __volatile__("divl %2" :: "a"(1u), "d"(0u), "r"(zero));
	} else {
		return SHELL_USAGE;
	}
	kprintf("error: fault %s did not fault\n", k);
	return -EINVAL;
}
