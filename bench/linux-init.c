/* bench/linux-init.c — the whole user space of the Linux reference guest.
 *
 * `make bench` boots Debian's own kernel in the same QEMU as lull, with this
 * program as /init in a tiny initramfs, and drives it over the serial console
 * with the very commands it types at lull's shell, so both are measured the
 * same way from the host:
 *
 *   idle SECONDS          sleep, then one line like lull's `idle`, followed by
 *                         the interrupt lines of /proc/interrupts that fired
 *                         and the clocksource and clock event device in use
 *   latency COUNT PERIOD_US   a cyclictest loop (clock_nanosleep, TIMER_ABSTIME,
 *                         SCHED_FIFO 99), printed in lull's `latency` format
 *   sleep MS              clock_nanosleep for MS ms (the host times the prompt)
 *   uptime                CLOCK_MONOTONIC in lull's `uptime` format
 *   dyntick on|off        the 2005 switch, as lull's `dyntick on|off`: writes
 *                         1 or 0 to /sys/devices/system/timer/timer0/
 *                         dyn_tick_state (only the kernel that linux/'s
 *                         series patches has it; others print an error)
 *   poweroff              reboot(RB_POWER_OFF): ACPI S5, QEMU exits
 *
 * Which interrupts are "timer" wakeups: the lines of /proc/interrupts named
 * LOC (local APIC timer), those whose device is `timer` (IRQ 0: PIT or HPET
 * in legacy mode), and those whose device starts with `hpet` (per-CPU HPET
 * channels).  Every other line (serial, IPIs, ...) counts only in "all".
 *
 * Built static (glibc) for i386 with the i686 cross compiler and for amd64
 * with the host compiler; nothing else is in the initramfs.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000LL
#define MAX_LINES    64         /* /proc/interrupts rows we keep */
#define MAX_SAMPLES  1000000    /* latency loop, as lull's limit */

struct irq_line {
	char name[16];          /* "0", "LOC", "RES", ... */
	char device[48];        /* the last column: "timer", "ttyS0", "Local timer interrupts" */
	unsigned long long count;       /* summed over CPUs */
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The first line of a sysfs or proc file, without its newline, or "?". */
static const char *first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f || !fgets(buf, size, f))
		snprintf(buf, size, "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

#define CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define CLOCKEVENT  "/sys/devices/system/clockevents/clockevent0/current_device"

#define DYN_TICK_STATE "/sys/devices/system/timer/timer0/dyn_tick_state"

static void cmd_dyntick(int on)
{
	FILE *f = fopen(DYN_TICK_STATE, "w");
	if (!f || fprintf(f, "%d\n", on) < 0 || fclose(f) != 0) {
		printf("error: dyntick: %s: %s\n", DYN_TICK_STATE, strerror(errno));
		return;
	}
	printf("dyntick %s ok\n", on ? "on" : "off");
}

static void print_clocks(void)
{
	char cs[64], ce[64];
	printf("clocksource %s, clockevent %s\n", first_line(CLOCKSOURCE, cs, sizeof cs),
	       first_line(CLOCKEVENT, ce, sizeof ce));
}

/* Read /proc/interrupts: one row per line, CPU columns summed. */
static int read_interrupts(struct irq_line *lines)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char buf[512];
	int n = 0;
	if (!f)
		return 0;
	if (!fgets(buf, sizeof buf, f)) {       /* header: CPU0 CPU1 ... */
		fclose(f);
		return 0;
	}
	while (n < MAX_LINES && fgets(buf, sizeof buf, f)) {
		char *p = buf, *colon = strchr(buf, ':');
		if (!colon)
			continue;
		*colon = '\0';
		while (isspace((unsigned char)*p))
			p++;
		struct irq_line *l = &lines[n];
		snprintf(l->name, sizeof l->name, "%.15s", p);        /* truncating is fine */
		if (strcmp(l->name, "ERR") == 0 || strcmp(l->name, "MIS") == 0)
			continue;       /* error counters, not interrupts */
		l->count = 0;
		p = colon + 1;
		for (;;) {      /* the per-CPU counts */
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			l->count += v;
			p = end;
		}
		while (isspace((unsigned char)*p))
			p++;
		p[strcspn(p, "\n")] = '\0';
		/* The device is the last word for numbered lines ("IO-APIC 2-edge timer"),
		 * the whole text for named ones ("Local timer interrupts"). */
		char *last = isdigit((unsigned char)l->name[0]) ? strrchr(p, ' ') : NULL;
		snprintf(l->device, sizeof l->device, "%.47s", last ? last + 1 : p);
		n++;
	}
	fclose(f);
	return n;
}

static int is_timer_line(const struct irq_line *l)
{
	return strcmp(l->name, "LOC") == 0 || strcmp(l->device, "timer") == 0 ||
	       strncmp(l->device, "hpet", 4) == 0;
}

static void print_rate(unsigned long long count, int64_t ns)
{
	printf("%.2f", ns ? count * 1e9 / ns : 0.0);
}

static void cmd_idle(unsigned secs)
{
	static struct irq_line before[MAX_LINES], after[MAX_LINES];
	int nb = read_interrupts(before);
	int64_t t0 = now_ns();
	struct timespec d = { .tv_sec = secs };
	clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
	int64_t t1 = now_ns();
	int na = read_interrupts(after);

	unsigned long long timer = 0, all = 0, delta[MAX_LINES];
	for (int i = 0; i < na; i++) {
		delta[i] = after[i].count;
		for (int j = 0; j < nb; j++)
			if (strcmp(before[j].name, after[i].name) == 0)
				delta[i] -= before[j].count;
		all += delta[i];
		if (is_timer_line(&after[i]))
			timer += delta[i];
	}
	int64_t span = t1 - t0;
	printf("idle %lld.%03lld s: %llu wakeups (", (long long)(span / NSEC_PER_SEC),
	       (long long)(span % NSEC_PER_SEC / 1000000), timer);
	print_rate(timer, span);
	printf("/s) from timer interrupts; all interrupts %llu (", all);
	print_rate(all, span);
	printf("/s)\n   count   rate/s  cause\n");
	for (int i = 0; i < na; i++) {
		if (!delta[i])
			continue;
		printf("%8llu  ", delta[i]);
		print_rate(delta[i], span);
		printf("\t%s: %s%s\n", after[i].name, after[i].device,
		       is_timer_line(&after[i]) ? " [timer]" : "");
	}
	print_clocks();         /* what ticked: the clocksource may have changed since boot */
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* cyclictest: absolute deadlines one period apart; latency = wake - deadline. */
static void cmd_latency(unsigned count, unsigned period_us)
{
	static uint32_t us[MAX_SAMPLES];
	struct sched_param sp = { .sched_priority = 99 };
	sched_setscheduler(0, SCHED_FIFO, &sp);
	mlockall(MCL_CURRENT | MCL_FUTURE);

	int64_t deadline = now_ns(), sum = 0;
	for (unsigned i = 0; i < count; i++) {
		deadline += (int64_t)period_us * 1000;
		struct timespec ts = { .tv_sec = deadline / NSEC_PER_SEC,
		                       .tv_nsec = deadline % NSEC_PER_SEC };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		int64_t late = now_ns() - deadline;
		us[i] = late > 0 ? (uint32_t)(late / 1000) : 0;
		sum += late > 0 ? late : 0;
	}
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);

	qsort(us, count, sizeof us[0], cmp_u32);
	/* The same nearest-rank percentiles and log2 histogram as lull's. */
	uint32_t p50 = us[(count * 50 + 99) / 100 - 1], p99 = us[(count * 99 + 99) / 100 - 1];
	long long avg10 = sum * 10 / count / 1000;
	printf("latency: n=%u period=%uus min=%u avg=%lld.%lld p50=%u p99=%u max=%u (us)\n",
	       count, period_us, us[0], avg10 / 10, avg10 % 10, p50, p99, us[count - 1]);
	unsigned bins[16] = { 0 };
	for (unsigned i = 0; i < count; i++) {
		unsigned b = 0;
		while (b < 15 && (1u << b) <= us[i])
			b++;
		bins[b]++;
	}
	for (unsigned b = 0; b < 16; b++)
		if (bins[b])
			printf("  %5u-%-5u us %8u\n", b ? 1u << (b - 1) : 0, 1u << b, bins[b]);
}

static void cmd_sleep(unsigned ms)
{
	struct timespec d = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
}

static void cmd_uptime(void)
{
	int64_t t = now_ns();
	printf("up %lld.%09lld s\n", (long long)(t / NSEC_PER_SEC), (long long)(t % NSEC_PER_SEC));
}

int main(void)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	struct utsname u;
	uname(&u);
	char up[64];
	printf("init: linux %s %s\n", u.release, u.machine);
	printf("init: uptime at init (s, idle s): %s\n", first_line("/proc/uptime", up, sizeof up));
	printf("init: ");
	print_clocks();

	char line[128];
	for (;;) {
		unsigned a, b;
		printf("init> ");
		fflush(stdout);
		if (!fgets(line, sizeof line, stdin))
			break;
		if (sscanf(line, "idle %u", &a) == 1 && a > 0)
			cmd_idle(a);
		else if (sscanf(line, "latency %u %u", &a, &b) == 2 && a > 0 && a <= MAX_SAMPLES && b > 0)
			cmd_latency(a, b);
		else if (sscanf(line, "sleep %u", &a) == 1)
			cmd_sleep(a);
		else if (strncmp(line, "uptime", 6) == 0)
			cmd_uptime();
		else if (strcmp(line, "dyntick on\n") == 0 || strcmp(line, "dyntick off\n") == 0)
			cmd_dyntick(line[9] == 'n');
		else if (strncmp(line, "poweroff", 8) == 0)
			break;
		else if (line[0] != '\n')
			printf("usage: idle S | latency COUNT PERIOD_US | sleep MS | uptime | "
			       "dyntick on|off | poweroff\n");
	}
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
