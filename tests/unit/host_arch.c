/* tests/unit/host_arch.c — include/time/arch.h for the host unit tests, so
 * kernel/time/ links unchanged against fakes.
 *
 * Tests look at what happened through the host_* variables below (declare
 * them extern where needed):
 *   host_irqs_disabled   the simulated interrupt flag; callbacks assert it
 *   host_last_kprintf    the last line kprintf formatted
 *   host_kprintf_log     everything kprintf formatted since the test last
 *                        emptied it (host_kprintf_log[0] = 0), cut to fit
 *   host_panic_catch     if set, panic() longjmps there instead of aborting,
 *                        so a test can check that a broken invariant panics
 *   host_last_panic      the panic message
 * kprintf prints only when LULL_UNIT_VERBOSE is set in the environment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "time/arch.h"
#include "time/hrtimer.h"
#include "time/tick.h"
#include "time/timer.h"
#include "time/wakeups.h"
#include "host_test.h"

/* Per thread: each host thread in tests/unit/test_spinlock.c is a CPU,
 * and every CPU has its own interrupt flag. */
_Thread_local bool host_irqs_disabled;

/* The simulated CPUs: a test plays CPU n by setting host_cpu_id = n (per
 * thread: a test may run each CPU in its own thread) after making
 * host_nr_cpus at least n + 1.  Their time state is the time core's own
 * (kernel/time/percpu.c). */
unsigned host_nr_cpus = 1;
_Thread_local unsigned host_cpu_id;
/* arch_kick_cpu: how often each CPU was kicked, and a test's own action. */
unsigned host_kicks[HOST_MAX_CPUS];
void (*host_kick_hook)(unsigned cpu);

static void host_cpu_check(unsigned cpu)
{
	if (cpu >= HOST_MAX_CPUS) {
		fprintf(stderr, "host_arch: CPU %u of %u\n", cpu, HOST_MAX_CPUS);
		abort();
	}
}

/* arch_cycles: a test sets the counter each stamp reads. */
uint64_t host_cycles;
uint64_t arch_cycles(void) { return host_cycles; }
/* arch_halt_cycles: what a test says the last halt lasted (then 0). */
uint64_t host_halt_cycles;
uint64_t arch_halt_cycles(void) { uint64_t n = host_halt_cycles; host_halt_cycles = 0; return n; }
unsigned arch_this_cpu_id(void) { return host_cpu_id; }
unsigned arch_nr_cpus(void) { return host_nr_cpus; }

/* The kick's vector in the host tests: the kernel's IPI vector. */
bool arch_vector_is_kick(unsigned vector) { return vector == 0xF1; }

void arch_kick_cpu(unsigned cpu)
{
	host_cpu_check(cpu);            /* aborts on a CPU that does not exist */
	__atomic_add_fetch(&host_kicks[cpu], 1, __ATOMIC_RELAXED);
	if (host_kick_hook)
		host_kick_hook(cpu);
}
char host_last_kprintf[256];
char host_kprintf_log[8192];
jmp_buf *host_panic_catch;
char host_last_panic[256];

unsigned long arch_irq_save(void)
{
	unsigned long was_disabled = host_irqs_disabled;
	host_irqs_disabled = true;
	return was_disabled;
}

/* The tick layer's unconditional switches (not used by the time core). */
void arch_irq_enable(void) { host_irqs_disabled = false; }
void arch_irq_disable(void) { host_irqs_disabled = true; }

/* Restoring while interrupts are on means a save/restore pair is broken. */
void arch_irq_restore(unsigned long flags)
{
	if (!host_irqs_disabled || flags > 1) {
		fprintf(stderr, "arch_irq_restore: unbalanced (enabled=%d, flags=%lu)\n",
		        !host_irqs_disabled, flags);
		abort();
	}
	host_irqs_disabled = flags != 0;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(host_last_kprintf, sizeof(host_last_kprintf), fmt, ap);
	va_end(ap);
	size_t used = strlen(host_kprintf_log);
	snprintf(host_kprintf_log + used, sizeof(host_kprintf_log) - used, "%s", host_last_kprintf);
	if (getenv("LULL_UNIT_VERBOSE"))
		fputs(host_last_kprintf, stdout);
	return n;
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(host_last_panic, sizeof(host_last_panic), fmt, ap);
	va_end(ap);
	if (host_panic_catch) {
		jmp_buf *to = host_panic_catch;
		host_panic_catch = NULL;
		longjmp(*to, 1);
	}
	fprintf(stderr, "panic: %s\n", host_last_panic);
	abort();
}
