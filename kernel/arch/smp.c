/* kernel/arch/smp.c — the CPUs: each one's struct cpu, and asking another
 * CPU to run a function or to look at its timers again.
 *
 * Starting the other CPUs needs the ACPI tables, the local APIC and a clock
 * to time the start-up IPIs, all of them floors above the CPU's: it is
 * kernel/smp_boot.c, which also runs each AP's life.  This file is what the
 * CPU itself offers: its structure, found through FS, and the one
 * inter-processor interrupt lull uses (VEC_IPI_CALL), sent through the
 * function the local APIC driver hands over (smp_set_ipi).
 */
#include "arch/smp.h"
#include "arch/trap.h"
#include "errno.h"

struct cpu cpus[NR_CPUS];
unsigned cpus_online = 1;

/* How an IPI is sent (the local APIC driver's, handed over by smp_init);
 * none with one CPU. */
static int (*send_ipi)(unsigned apic_id, unsigned vector);

void smp_set_ipi(int (*send)(unsigned apic_id, unsigned vector))
{
	send_ipi = send;
}

int smp_send_call_ipi(unsigned index)
{
	if (index >= cpus_online || !send_ipi)
		return -EINVAL;
	return send_ipi(cpus[index].apic_id, VEC_IPI_CALL);
}

/* What call_fn holds between smp_call's claim and its publishing the call
 * (never run: an address no call can have). */
static void call_claimed(void *arg)
{
	UNUSED(arg);
}

void smp_kick(unsigned index)
{
	if (index < cpus_online && index != this_cpu()->index)
		(void)smp_send_call_ipi(index);
}

int smp_call(unsigned index, void (*fn)(void *arg), void *arg)
{
	if (index == 0 || index >= cpus_online)
		return -EINVAL;
	struct cpu *c = &cpus[index];
	void (*none)(void *) = NULL;
	/* Claim the slot first, only if it is free (a CPU still running a
	 * call keeps it), then write the argument, then publish fn: a caller
	 * refused with -EBUSY has written nothing, so it cannot change the
	 * argument of the call in flight.  The AP takes call_claimed as "no
	 * call yet"; the IPI comes after fn is there. */
	if (!__atomic_compare_exchange_n(&c->call_fn, &none, call_claimed, false, __ATOMIC_ACQUIRE,
	                                 __ATOMIC_RELAXED))
		return -EBUSY;
	c->call_arg = arg;
	__atomic_store_n(&c->call_fn, fn, __ATOMIC_RELEASE);
	return smp_send_call_ipi(index);
}

bool smp_call_take(struct cpu *c, void (**fn)(void *arg), void **arg)
{
	void (*f)(void *) = __atomic_load_n(&c->call_fn, __ATOMIC_ACQUIRE);
	if (!f || f == call_claimed)
		return false;
	*fn = f;
	*arg = c->call_arg;
	return true;
}

void smp_call_done(struct cpu *c)
{
	__atomic_store_n(&c->call_fn, NULL, __ATOMIC_RELEASE);
}
