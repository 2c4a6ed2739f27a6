/* kernel/smp_boot.c — starting the other CPUs, and each one's life.
 *
 * Spec: Intel SDM Vol. 3A, 8.4 (multiple-processor initialization), and
 * the ACPI MADT (5.2.12) for which CPUs exist.  At reset every CPU but one
 * (the bootstrap processor, BSP, which ran the firmware and lull so far)
 * waits for an INIT and then a start-up IPI (SIPI).  For each application
 * processor (AP) the MADT lists, smp_init() does the SDM's "universal
 * start-up algorithm" (8.4.4.1): INIT, wait 10 ms, SIPI, wait 200 us, and a
 * second SIPI if the AP has not answered (the second is for CPUs that miss
 * the first; a CPU that took the first ignores it, 8.4.3).
 *
 * A SIPI starts the AP in real mode at a page below 1 MiB: we copy
 * boot/trampoline.asm there, and it brings the AP to ap_entry, in 32-bit
 * protected mode on the stack in its struct cpu, with paging on.  APs start
 * one at a time, so they share the ap_boot_* variables.  ap_main() loads
 * the GDT (with the AP's own FS segment) and the IDT, sets up its local
 * APIC, says it is online, and halts with interrupts on.  Its own local
 * APIC timer then follows the boot CPU's tick mode and rate
 * (smp_tick_changed, ap_follow_tick); the PIC's interrupts go to the BSP.
 *
 * Above the drivers (docs/architecture.md): it needs the MADT's CPU list,
 * the local APIC's start-up IPIs and a delay to time them.  The CPU's own
 * part (struct cpu, smp_call, smp_kick) is kernel/arch/smp.c.
 */
#include "arch/irq.h"
#include "arch/paging.h"
#include "arch/smp.h"
#include "arch/sysenter.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "delay.h"
#include "drivers/acpi.h"
#include "drivers/platform.h"
#include "drivers/timer/lapic.h"
#include "errno.h"
#include "idle.h"
#include "kprintf.h"
#include "kstring.h"
#include "multiboot.h"
#include "panic.h"
#include "smp_boot.h"
#include "task.h"
#include "spinlock.h"
#include "time/tick.h"

/* SDM 8.4.4.1: the waits of the universal start-up algorithm. */
#define INIT_WAIT_US        10000
#define SIPI_WAIT_US        200
/* After the second SIPI, how long an AP may take to reach ap_main: it runs
 * a few hundred instructions, but it has to be given the CPU first.
 * QUIRK: QEMU running its vCPUs round-robin in one host thread (always so
 * under -icount) switches from a spinning vCPU only when its kick timer
 * fires, every 100 ms of virtual time (TCG_KICK_PERIOD), so the boot CPU's
 * own polling can keep an AP from running for that long; with a 100 ms
 * wait, some APs of a 4-CPU boot "did not start".  One second covers ten
 * kicks, and costs nothing when the AP answers at once.  Workaround for
 * the wait itself: PAUSE (cpu_relax) after each start-up IPI and between
 * the waits' steps.  QEMU's TCG ends a vCPU's turn at a PAUSE (its pause
 * helper leaves the CPU loop), so the round robin moves on to the AP at
 * once: under -icount that cut most of the time a 2-CPU boot took (`make
 * bench`, row "boot-pc-2cpu", measures it as it is now; part of each
 * AP's start is still slow, not yet understood).  On hardware PAUSE is
 * the spin-wait hint it is everywhere else. */
#define AP_START_WAIT_US    1000000
#define AP_START_STEP_US    1000

/* Where the trampoline may go: a page-aligned start-up vector VV gives
 * address VV000, so below 1 MiB; not page 0 (real-mode interrupt table
 * and NULL) and below the EBDA and video memory at 0x9F000 and up. */
/* The kernel code segment (kernel/arch/gdt.c), for the far jump. */
#define KERNEL_CS           0x08
#define TRAMPOLINE_LOWEST   0x1000u
#define TRAMPOLINE_HIGHEST  0x9E000u

extern const uint8_t trampoline_start[], trampoline_end[];
extern const uint8_t trampoline_gdt_ptr[], trampoline_entry[];
extern void ap_entry(void);
extern char kernel_stack_bottom[], kernel_stack_top[];

/* Read by boot/trampoline.asm's ap_entry, one AP at a time. */
uint32_t ap_boot_stack, ap_boot_cr3, ap_boot_cr4;
static struct cpu *volatile ap_booting;

void smp_boot_cpu_init(void)
{
	struct cpu *c = &cpus[0];
	*c = (struct cpu){ .self = c, .index = 0, .state = CPU_BUSY };
	c->stack_guard = stack_guard_init(kernel_stack_bottom);
	c->stack_top = (uint32_t)kernel_stack_top;
	gdt_load_cpu(0, c);
	sysenter_init_cpu(0);           /* the fast system call, where the CPU has it */
}

static volatile unsigned tick_generation;
static unsigned followed_generation[NR_CPUS];

/* The IPI wakes the CPU; the work is in call_fn or the tick to follow,
 * taken by its idle loop (ap_main).  An AP running a task gets to that loop
 * as soon as the interrupt returns to ring 3 (sched_want_idle): a hog
 * there must not keep another CPU's call, or the tick's change, waiting.
 * (The same IPI kicks CPU 0 for a task woken there: nothing to do here.) */
static void ipi_call_irq(void *ctx)
{
	UNUSED(ctx);
	struct cpu *c = this_cpu();
	void (*fn)(void *);
	void *arg;
	if (c->index != 0 && (smp_call_take(c, &fn, &arg) ||
	                      followed_generation[c->index] != __atomic_load_n(&tick_generation, __ATOMIC_ACQUIRE)))
		sched_want_idle();
}

/* tick_generation (above) is bumped whenever the boot CPU's tick changes;
 * each AP compares it with the one it follows. */

static void wake_aps(void)
{
	for (unsigned i = 1; i < cpus_online; i++)
		(void)smp_send_call_ipi(i);
}

/* The boot CPU's tick changed (the tick's smp hooks): wake every AP so it
 * restarts its own to match. */
static void smp_tick_changed(void)
{
	__atomic_add_fetch(&tick_generation, 1, __ATOMIC_RELEASE);
	wake_aps();
}

static const struct tick_smp_hooks smp_hooks = {
	.changed = smp_tick_changed,
};

/* On an AP: match the boot CPU's tick mode and rate with its own. */
static void ap_follow_tick(struct cpu *c)
{
	unsigned gen = __atomic_load_n(&tick_generation, __ATOMIC_ACQUIRE);
	if (followed_generation[c->index] == gen)
		return;
	followed_generation[c->index] = gen;
	struct clock_event_device *dev = lapic_timer_this_ap();
	if (dev)
		tick_secondary_follow(dev);
}

void ap_main(void);
void ap_main(void)
{
	struct cpu *c = ap_booting;
	gdt_load_cpu(c->index, c);
	sysenter_init_cpu(c->index);
	idt_load();
	lapic_ap_setup();
	c->state = CPU_IDLE;            /* tells smp_init we are running */
	sched_init_ap();                /* this context becomes its idle task */
	for (;;) {
		cli();
		ap_follow_tick(c);
		void (*fn)(void *);
		void *arg;
		bool call = smp_call_take(c, &fn, &arg);        /* another CPU's call before the tasks */
		if (!call && sched_run_others())        /* back here when none is runnable, or called */
			continue;
		if (!call) {
			/* Nothing to run: the idle path every CPU takes.  A call
			 * that arrives after the check sends its IPI, which ends
			 * the halt (cpu_idle halts with STI; HLT, and STI holds
			 * interrupts off for one more instruction, so none slips
			 * in before the HLT). */
			if (followed_generation[c->index] == tick_generation)
				cpu_idle();
			continue;
		}
		c->state = CPU_BUSY;
		tick_work_starts();     /* dyntick: busy means every CPU ticks */
		sti();
		fn(arg);
		cli();
		c->state = CPU_IDLE;
		smp_call_done(c);
	}
}

static bool overlaps(uint32_t a, uint32_t len, uint32_t b, uint32_t blen)
{
	return a < b + blen && b < a + len;
}

/* Is [page, page + PAGE_SIZE) usable RAM the loader left nothing in? */
static bool page_free(uint32_t page)
{
	const struct boot_info *bi = &boot_info;
	if (overlaps(page, PAGE_SIZE, bi->info_addr, bi->info_size))
		return false;
	if ((bi->flags & MULTIBOOT_INFO_CMDLINE) &&
	    overlaps(page, PAGE_SIZE, bi->cmdline_addr, bi->cmdline_size))
		return false;
	if ((bi->flags & MULTIBOOT_INFO_LOADER_NAME) &&
	    overlaps(page, PAGE_SIZE, bi->loader_name_addr, bi->loader_name_size))
		return false;
	if (bi->mods_count)
		return false;           /* lull takes no modules, so it never looks
		                           where they are: any page might hold one */
	if (!(bi->flags & MULTIBOOT_INFO_MEM_MAP))
		return true;            /* no map: conventional memory is RAM */
	if (overlaps(page, PAGE_SIZE, bi->mmap_addr, bi->mmap_length))
		return false;
	for (unsigned i = 0; i < bi->mmap_count; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];
		if (e->type == MULTIBOOT_MEMORY_AVAILABLE && e->addr <= page &&
		    page + PAGE_SIZE <= e->addr + e->len)
			return true;
	}
	return false;
}

/* Copy the trampoline to the first free page that can hold it and point it
 * at ap_entry; its address, or 0 if no page would do. */
static uint32_t trampoline_install(void)
{
	uint32_t size = (uint32_t)(trampoline_end - trampoline_start);
	for (uint32_t page = TRAMPOLINE_LOWEST; page <= TRAMPOLINE_HIGHEST; page += PAGE_SIZE) {
		if (!page_free(page))
			continue;
		uint8_t *t = (uint8_t *)page;
		memcpy(t, trampoline_start, size);
		uint16_t limit;
		uint32_t base;
		gdt_pointer(&limit, &base);
		struct __packed { uint16_t limit; uint32_t base; } gp = { limit, base };
		memcpy(t + (trampoline_gdt_ptr - trampoline_start), &gp, sizeof(gp));
		struct __packed { uint32_t offset; uint16_t selector; } entry =
			{ (uint32_t)ap_entry, KERNEL_CS };
		memcpy(t + (trampoline_entry - trampoline_start), &entry, sizeof(entry));
		return page;
	}
	return 0;
}

static bool ap_answered(struct cpu *c)
{
	return c->state != CPU_OFFLINE;
}

/* Start one AP; 0, or why not. */
static int start_ap(struct cpu *c, uint32_t trampoline)
{
	ap_booting = c;
	ap_boot_stack = (uint32_t)(c->stack + CPU_STACK_SIZE);
	c->stack_guard = stack_guard_init(c->stack);
	c->stack_top = (uint32_t)c->stack + CPU_STACK_SIZE;
	ap_boot_cr3 = read_cr3();
	ap_boot_cr4 = cpu.feat_edx & CPUID_1_EDX_PSE ? read_cr4() : 0;  /* 4 MiB pages */
	int rc = lapic_send_init(c->apic_id);
	rc = rc ? rc : delay_us(INIT_WAIT_US);
	for (unsigned sipi = 0; sipi < 2 && !rc && !ap_answered(c); sipi++) {
		rc = lapic_send_startup(c->apic_id, trampoline);
		cpu_relax();            /* the AP may run now (the QUIRK above) */
		rc = rc ? rc : delay_us(SIPI_WAIT_US);
	}
	for (unsigned waited = 0; !rc && !ap_answered(c) && waited < AP_START_WAIT_US;
	     waited += AP_START_STEP_US) {
		cpu_relax();
		rc = delay_us(AP_START_STEP_US);
	}
	if (!rc && !ap_answered(c))
		rc = -ETIMEDOUT;
	/* One that did not answer may still be on its way: INIT puts it back
	 * to waiting for a start-up IPI, so it cannot come up later on the
	 * stack and struct the next AP is given. */
	if (rc)
		(void)lapic_send_init(c->apic_id);
	return rc;
}

void smp_init(void)
{
	if (!acpi.has_madt) {
		kprintf("smp: one CPU (no ACPI MADT lists any other)\n");
		return;
	}
	if (!lapic_present()) {
		kprintf("smp: one CPU (no usable local APIC to send start-up IPIs)\n");
		return;
	}
	cpus[0].apic_id = lapic_id();
	if (acpi.cpu_count <= 1) {
		kprintf("smp: one CPU (the MADT lists %u)\n", acpi.cpu_count);
		return;
	}
	if (delay_us(SIPI_WAIT_US) != 0) {
		kprintf("smp: one CPU of %u (no clock to time the start-up IPIs)\n",
		        acpi.cpu_count);
		return;
	}
	uint32_t trampoline = trampoline_install();
	if (!trampoline) {
		kprintf("smp: one CPU of %u (no free page below 1 MiB for the start-up code)\n",
		        acpi.cpu_count);
		return;
	}
	if (irq_request_vector(VEC_IPI_CALL, ipi_call_irq, NULL, "ipi-call", lapic_eoi))
		panic("smp_init: the IPI vector is taken");
	smp_set_ipi(lapic_send_ipi);            /* smp_call and smp_kick send through it */
	tick_set_smp_hooks(&smp_hooks);         /* the APs follow the boot CPU's tick */
	unsigned listed = MIN(acpi.cpu_count, (unsigned)ACPI_MAX_CPUS), next = 1;
	for (unsigned i = 0; i < listed && next < NR_CPUS; i++) {
		unsigned id = acpi.cpu_apic_id[i];
		if (id == cpus[0].apic_id)
			continue;
		struct cpu *c = &cpus[next];
		*c = (struct cpu){ .self = c, .index = next, .apic_id = id, .state = CPU_OFFLINE };
		int rc = start_ap(c, trampoline);
		if (rc) {
			kprintf("smp: CPU with APIC ID %u did not start (%s)\n", id,
			        rc == -ETIMEDOUT ? "no answer in 1 s" : "the APIC did not send");
			continue;
		}
		next++;
	}
	cpus_online = next;
	kprintf("smp: %u CPUs online (APIC IDs", cpus_online);
	for (unsigned i = 0; i < cpus_online; i++)
		kprintf(" %u", cpus[i].apic_id);
	kprintf("; start-up code at 0x%05x)%s\n", trampoline,
	        acpi.cpu_count > NR_CPUS ? "; more in the MADT than lull runs" : "");
}
