/* kernel/shell/cmd_trace.c — `trace SECONDS`: record every CPU's timer
 * interrupts, idle entries and exits and task switches for SECONDS
 * (kernel/time/trace.c), then print them as CSV, one line per event, below
 * a `# trace:` line with the tick's mode, device and HZ and how many events
 * were dropped.  tools/trace2tef.py turns it into a trace Perfetto opens. */
#include "shell/args.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "arch/smp.h"
#include "shell/shell.h"
#include "time/percpu.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/trace.h"
#include "time/wakeups.h"
#include "shell/commands.h"
#include "kstring.h"
#include "task.h"

static const char *const trace_names[] = {
	[TRACE_TIMER_IRQ] = "timer_irq", [TRACE_IDLE_ENTER] = "idle_enter",
	[TRACE_IDLE_EXIT] = "idle_exit", [TRACE_SWITCH] = "switch",
};

/* What each CPU runs as recording starts, so that a reader of the trace
 * (tools/trace2tef.py) knows whose each CPU's first events are. */
static void trace_tasks_at_start(uint64_t start_ns)
{
	for (unsigned c = 0; c < cpus_online; c++) {
		const struct task *t = task_running_on(c);
		if (!t)
			continue;
		struct trace_event e = { .t_ns = start_ns, .kind = TRACE_SWITCH, .cause = TRACE_SWITCH_AT_START,
		                         .skip = t->id, .name = t->name };
		trace_add_on(&e, c);
	}
}
static const char *const limit_names[] = {
	[TICK_LIMIT_NONE] = "tick", [TICK_LIMIT_TIMER] = "timer", [TICK_LIMIT_HRTIMER] = "hrtimer",
	[TICK_LIMIT_DEVICE] = "device_max", [TICK_LIMIT_WRAP] = "clocksource_wrap",
	[TICK_LIMIT_WATCHDOG] = "watchdog",
};

int cmd_trace(int argc, char **argv)
{
	uint32_t secs;
	if (argc < 2 || argc > 3 || parse_u32(argv[1], 1, TRACE_MAX_S, &secs) != 0 ||
	    (argc == 3 && strcmp(argv[2], "tasks") != 0))
		return SHELL_USAGE;
	struct tick_cpu *tc = this_tick();
	uint64_t start_ns = ktime_get_ns();
	trace_buf.switches = argc == 3;
	trace_start(start_ns);
	if (trace_buf.switches)
		trace_tasks_at_start(start_ns);
	int rc = wait_ns((uint64_t)secs * NSEC_PER_SEC);
	trace_stop();
	if (rc < 0 && rc != -EINTR)         /* Ctrl-C: what was recorded */
		return shell_sleep_error("trace", rc);
	kprintf("# trace: mode=%s device=%s hz=%u cpus=%u events=%u dropped=%u\n",
	        tick_mode_name(tc->mode), tc->dev->name, tc->hz, cpus_online, trace_buf.count,
	        trace_buf.dropped);
	if (trace_buf.dropped) {
		/* The CSV below stops here: say so before it, not after. */
		uint64_t full = trace_buf.full_ns > trace_buf.start_ns ?
		                trace_buf.full_ns - trace_buf.start_ns : 0;
		char after[FMT_FIXED_SIZE];
		kprintf("# trace: buffer full after %s s of %u s; %u events dropped\n",
		        fmt_fixed(after, sizeof(after), full / NSEC_PER_MSEC, 3), secs,
		        trace_buf.dropped);
	}
	/* One line per event, every CPU's in the order they were added. */
	kprintf("t_ns,cpu,event,cause,skip_ticks,sleep_ns,name\n");
	for (unsigned i = 0; i < trace_buf.count; i++) {
		const struct trace_event *e = &trace_buf.ev[i];
		const char *cause = "";
		char irq[24];
		if (e->kind == TRACE_SWITCH) {
			cause = e->cause == TRACE_SWITCH_AT_START ? "start" : "";
		} else if (e->kind == TRACE_IDLE_ENTER) {
			cause = limit_names[e->cause];
		} else if (e->kind == TRACE_IDLE_EXIT) {
			cause = wakeup_kind_name((enum wakeup_kind)e->cause);
			if (e->cause == WAKE_IRQ) {
				const char *n = irq_vector_name(e->vector);
				ksnprintf(irq, sizeof(irq), "irq:%s", n ? n : "?");
				cause = irq;
			}
		}
		kprintf("%llu,%u,%s,%s,%u,%llu,%s\n", (unsigned long long)e->t_ns, e->cpu,
		        trace_names[e->kind], cause, e->skip, (unsigned long long)e->sleep_ns, e->name ? e->name : "");
	}
	return rc;
}
