/* kernel/time/path.c — stamps along the timer interrupt's path, summed
 * per stage over the paths in which an hrtimer callback ran
 * (include/time/path.h has the stages and where each one ends). */
#include "kstring.h"
#include "time/percpu.h"
#include "time/arch.h"
#include "time/path.h"
#include "time/tick.h"

bool path_on;

static const char *const stage_names[PATH_STAGES] = {
	[PATH_ENTRY] = "entry", [PATH_GUARD] = "stack guard", [PATH_IRQ_ENTER] = "irq enter",
	[PATH_HANDLER] = "handler", [PATH_EOI] = "eoi", [PATH_HRTIMERS] = "hrtimers",
	[PATH_CALLBACKS] = "callbacks", [PATH_WHEEL] = "wheel", [PATH_REPROGRAM] = "reprogram",
	[PATH_WATCHDOG] = "watchdog", [PATH_EXIT] = "exit",
};

const char *path_stage_name(enum path_stage s) { return stage_names[s]; }

/* The path is complete: add each stage's cycles, from the last stamp
 * before it (a stage not passed adds nothing). */
static void path_complete(struct path_cpu *p)
{
	uint64_t last = p->stamp[PATH_ENTRY], stage[PATH_STAGES] = { 0 };
	for (unsigned s = PATH_ENTRY + 1; s < PATH_STAGES; s++) {
		if (!p->stamp[s])
			continue;
		stage[s] = p->stamp[s] - last;
		p->cycles[s] += stage[s];
		last = p->stamp[s];
	}
	p->paths++;
	uint64_t to_callback = p->stamp[PATH_HRTIMERS] - p->stamp[PATH_ENTRY];
	if (to_callback > p->slowest_to_callback) {
		p->slowest_to_callback = to_callback;
		memcpy(p->slowest, stage, sizeof(stage));
	}
}

void path_record(enum path_stage s)
{
	struct path_cpu *p = &this_tick()->path;
	unsigned long flags = arch_irq_save();
	uint64_t now = arch_cycles();
	/* The stamps are cleared as a path ends (and by path_reset), not as
	 * one starts: the clearing would count in the first stage. */
	if (s == PATH_ENTRY) {
		if (p->depth++ == 0)
			p->stamp[PATH_ENTRY] = now;
	} else if (p->depth == 1 && !p->stamp[s]) {
		/* The first pass counts: the timers may run twice in a row. */
		p->stamp[s] = now;
		if (s == PATH_HRTIMERS)
			p->callback = true;
		if (s == PATH_EXIT) {
			if (p->callback)
				path_complete(p);
			memset(p->stamp, 0, sizeof(p->stamp));
			p->callback = false;
		}
	}
	if (s == PATH_EXIT && p->depth)
		p->depth--;
	arch_irq_restore(flags);
}

void path_reset(void)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct path_cpu *p = &time_tick_of(cpu)->path;
		memset(p->stamp, 0, sizeof(p->stamp));
		p->callback = false;
		p->depth = 0;
		p->paths = 0;
		memset(p->cycles, 0, sizeof(p->cycles));
		memset(p->slowest, 0, sizeof(p->slowest));
		p->slowest_to_callback = 0;
	}
}

uint64_t path_totals(unsigned cpu, uint64_t cycles[PATH_STAGES], uint64_t slowest[PATH_STAGES])
{
	const struct path_cpu *p = &time_tick_of(cpu)->path;
	memcpy(cycles, p->cycles, sizeof(p->cycles));
	memcpy(slowest, p->slowest, sizeof(p->slowest));
	return p->paths;
}
