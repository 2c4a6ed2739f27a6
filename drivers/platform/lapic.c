/* drivers/platform/lapic.c — the local APIC: each CPU's own interrupt
 * controller.  (Its timer is drivers/timer/lapic.c.)
 *
 * Spec: Intel SDM Vol. 3A, chapter 10 "Advanced Programmable Interrupt
 * Controller (APIC)", numbered as in the 2011-2021 editions (chapter 11 in
 * later ones): 10.4.3-10.4.4 enabling and finding it, Table 10-1 registers,
 * 10.5.1 local vector table, 10.6 inter-processor interrupts, 10.8.5 EOI,
 * 10.9 spurious interrupts; virtual wire mode: Intel MultiProcessor
 * Specification 1.4, 3.6.2.2.  lull keeps the 8259 PIC, so the boot CPU's
 * APIC stays in virtual wire mode: LINT0 passes the PIC's INTR through
 * (ExtINT), LINT1 carries NMI, and legacy IRQs reach the CPU as before,
 * acknowledged at the PIC alone.  The other CPUs' APICs have both pins
 * masked (lapic_ap_setup): they hear only IPIs and their own timer.  Not
 * used: the I/O APIC, x2APIC, the error, thermal and performance LVT
 * entries (left masked).
 */
#include "drivers/platform.h"
#include "drivers/acpi.h"
#include "errno.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "arch/paging.h"
#include "panic.h"
#include "arch/trap.h"
#include "arch/x86.h"

#define LAPIC_DEFAULT_BASE  0xFEE00000u     /* where every APIC starts (10.4.1) */

/* Registers: offsets from the base, 32 bits each (Table 10-1); the
 * timer's are in include/drivers/platform.h. */
enum {
	LAPIC_ID            = 0x020,    /* this APIC's ID in bits 24-31 */
	LAPIC_VERSION       = 0x030,    /* version in bits 0-7 */
	LAPIC_TPR           = 0x080,    /* task priority */
	LAPIC_EOI           = 0x0B0,    /* end of interrupt: write 0 */
	LAPIC_SVR           = 0x0F0,    /* spurious vector, software enable */
	LAPIC_ICR_LO        = 0x300,    /* interrupt command: writing it sends */
	LAPIC_ICR_HI        = 0x310,    /* ... the destination, bits 24-31 */
	LAPIC_LVT_LINT0     = 0x350,    /* local vector table: pin LINT0 (the PIC's INTR) */
	LAPIC_LVT_LINT1     = 0x360,    /* ... pin LINT1 (NMI) */
	LAPIC_LVT_ERROR     = 0x370,    /* ... APIC internal errors */
};

#define LAPIC_VERSION_FIELD     0xFFu       /* bits 0-7 of LAPIC_VERSION */
#define LAPIC_VERSION_KIND      0xF0u       /* its high nibble ... */
#define LAPIC_VERSION_INTEGRATED 0x10u      /* ... is 1 for an APIC inside the CPU */
#define LAPIC_SVR_ENABLE        (1u << 8)   /* APIC software enable */
#define LVT_DELIVERY_NMI        (4u << 8)   /* deliver as NMI */
#define LVT_DELIVERY_EXTINT     (7u << 8)   /* take the vector from the 8259 */

#define MSR_IA32_APIC_BASE      0x1B        /* P6 and later: the APIC's address */
#define APIC_BASE_ADDRESS       0xFFFFF000u /* its bits 12-31 (32-35 are 0 here) */
#define CPU_FAMILY_P6           6           /* first family with IA32_APIC_BASE */

static uintptr_t lapic_regs;        /* mapped registers, 0 if no APIC */
static uint32_t phys_base;
static unsigned version;

uint32_t lapic_read(unsigned reg) { return mmio_read32(lapic_regs + reg); }
void lapic_write(unsigned reg, uint32_t v) { mmio_write32(lapic_regs + reg, v); }

bool lapic_present(void) { return lapic_regs != 0; }
uint32_t lapic_phys(void) { return phys_base; }
unsigned lapic_version(void) { return version; }

/* 10.8.5: tell the APIC the interrupt it delivered is handled.  Only for
 * vectors the APIC delivers itself: ExtINT ones are the PIC's business. */
void lapic_eoi(void)
{
	if (lapic_regs)
		lapic_write(LAPIC_EOI, 0);
}

/* 10.9: a spurious-vector interrupt is not in service, so it must not get
 * an EOI (we register it with none).  irq_dispatch has already counted it
 * for `irqs`; there is nothing else to do. */
static void lapic_spurious_irq(void *ctx)
{
	UNUSED(ctx);
}

/* 10.4.4: IA32_APIC_BASE holds the address on P6 and later (its enable
 * bit is set, or CPUID would not report an APIC: 10.4.3); a Pentium has no
 * such MSR, so we take the MADT's word, or the reset default. */
static uint32_t lapic_phys_base(void)
{
	if (cpu.family >= CPU_FAMILY_P6 && (cpu.feat_edx & CPUID_1_EDX_MSR))
		return (uint32_t)rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ADDRESS;
	if (acpi.has_madt && acpi.lapic_base)
		return acpi.lapic_base;
	return LAPIC_DEFAULT_BASE;
}

/* Software-enable first: while the APIC is software-disabled every LVT
 * entry stays masked whatever we write (10.4.7.2). */
static void lapic_setup_virtual_wire(void)
{
	lapic_write(LAPIC_SVR, LAPIC_SVR_ENABLE | VEC_LAPIC_SPURIOUS);
	lapic_write(LAPIC_TPR, 0);                              /* accept all priorities */
	lapic_write(LAPIC_LVT_LINT0, LVT_DELIVERY_EXTINT);      /* unmasked: the PIC's INTR */
	lapic_write(LAPIC_LVT_LINT1, LVT_DELIVERY_NMI);         /* unmasked: NMI */
	lapic_write(LAPIC_LVT_ERROR, LVT_MASKED | VEC_LAPIC_ERROR);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
}

int lapic_init(void)
{
	if (!cpu.has_cpuid || !(cpu.feat_edx & CPUID_1_EDX_APIC)) {
		kprintf("lapic: none (CPUID reports no local APIC)\n");
		return -ENODEV;
	}
	uint32_t phys = lapic_phys_base();
	void *regs = paging_map_mmio(phys, PAGE_SIZE);
	if (!regs) {
		kprintf("lapic: not used: cannot map its registers at 0x%08x\n", phys);
		return -ENODEV;
	}
	lapic_regs = (uintptr_t)regs;
	unsigned v = lapic_read(LAPIC_VERSION) & LAPIC_VERSION_FIELD;
	if ((v & LAPIC_VERSION_KIND) != LAPIC_VERSION_INTEGRATED) {
		kprintf("lapic: none at 0x%08x (version register reads 0x%02x)\n", phys, v);
		lapic_regs = 0;
		return -ENODEV;
	}
	phys_base = phys;
	version = v;
	lapic_setup_virtual_wire();
	if (irq_request_vector(VEC_LAPIC_SPURIOUS, lapic_spurious_irq, NULL, "spurious", NULL))
		panic("lapic_init: the spurious vector is taken");
	return 0;           /* drivers/timer/lapic.c prints the line, with its timer */
}

/* --- IDs and inter-processor interrupts (10.6), for kernel/smp_boot.c and kernel/arch/smp.c --- */

#define LAPIC_ID_SHIFT          24
#define ICR_DELIVERY_FIXED      (0u << 8)   /* 10.6.1: the vector, to the APIC named */
#define ICR_DELIVERY_INIT       (5u << 8)   /* ... INIT */
#define ICR_DELIVERY_STARTUP    (6u << 8)   /* ... start-up: vector = page */
#define ICR_SEND_PENDING        (1u << 12)  /* delivery status: not yet taken */
#define ICR_LEVEL_ASSERT        (1u << 14)
#define ICR_DEST_SHIFT          24          /* physical destination: an APIC ID */
/* The APIC takes an IPI within a few bus cycles; 100,000 reads (10 ms
 * even at 100 ns a read) only run out on a broken one. */
#define ICR_SEND_POLLS          100000

unsigned lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> LAPIC_ID_SHIFT;
}

static int lapic_send(unsigned apic_id, uint32_t command)
{
	lapic_write(LAPIC_ICR_HI, apic_id << ICR_DEST_SHIFT);
	lapic_write(LAPIC_ICR_LO, command);         /* this write sends it */
	for (unsigned i = 0; i < ICR_SEND_POLLS; i++)
		if (!(lapic_read(LAPIC_ICR_LO) & ICR_SEND_PENDING))
			return 0;
	return -ETIME;
}

int lapic_send_ipi(unsigned apic_id, unsigned vector)
{
	return lapic_send(apic_id, ICR_DELIVERY_FIXED | ICR_LEVEL_ASSERT | vector);
}

int lapic_send_init(unsigned apic_id)
{
	return lapic_send(apic_id, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
}

int lapic_send_startup(unsigned apic_id, uint32_t page_phys)
{
	return lapic_send(apic_id, ICR_DELIVERY_STARTUP | (page_phys >> PAGE_SHIFT));
}

/* An AP's own APIC, after INIT: software-enable it with the spurious
 * vector; its LINT pins stay masked (the PIC's interrupts and NMI go to
 * the boot CPU only) and so does its timer, until it has a tick. */
void lapic_ap_setup(void)
{
	lapic_write(LAPIC_SVR, LAPIC_SVR_ENABLE | VEC_LAPIC_SPURIOUS);
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, LVT_MASKED);
	lapic_write(LAPIC_LVT_ERROR, LVT_MASKED | VEC_LAPIC_ERROR);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
}
