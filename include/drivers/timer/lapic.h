/* include/drivers/timer/lapic.h — the local APIC and its timer
 * (drivers/timer/lapic.c). */
#ifndef LULL_DRIVERS_TIMER_LAPIC_H
#define LULL_DRIVERS_TIMER_LAPIC_H

#include "compiler.h"

/* If the CPU has a local APIC: put it in virtual wire mode, calibrate its
 * timer and register the clock event devices "lapic" and, where the CPU can,
 * "tsc-deadline".  Returns 0, or a negative error after one line saying why
 * not. */
int lapic_init(void);

/* Mask the timer and stop its count for good (the `floor` boot option). */
void lapic_timer_stop(void);

/* The rest of the APIC, for starting the other CPUs (kernel/arch/smp.c):
 * whether lapic_init found one; this CPU's APIC ID; INIT and start-up IPIs
 * to the APIC `apic_id` (0, or -ETIME if the APIC never took it; the
 * start-up IPI starts the CPU in real mode at page_phys, page-aligned and
 * below 1 MiB); and an AP's own APIC set up once it runs. */
bool lapic_present(void);
unsigned lapic_id(void);
int lapic_send_init(unsigned apic_id);
/* A fixed-delivery IPI with `vector` to the APIC `apic_id` (0 or -ETIME),
 * and the EOI its handler needs. */
int lapic_send_ipi(unsigned apic_id, unsigned vector);
void lapic_eoi_for_ipi(void);
int lapic_send_startup(unsigned apic_id, uint32_t page_phys);
void lapic_ap_setup(void);

#endif
