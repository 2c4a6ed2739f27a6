/* include/smp_boot.h — starting the other CPUs (kernel/smp_boot.c). */
#ifndef LULL_SMP_BOOT_H
#define LULL_SMP_BOOT_H

/* The boot CPU's struct and segment: right after gdt_init, before anything
 * calls this_cpu(). */
void smp_boot_cpu_init(void);

/* Start every other CPU the ACPI MADT lists (INIT, start-up IPI, start-up
 * IPI) and wait for each; print one line saying how many run, or why only
 * one.  Needs the local APIC (lapic_init) and a clocksource or the PIT to
 * time the waits (delay_us).  The APs halt with interrupts on; each starts
 * its own tick when the boot CPU's starts (tick_init). */
void smp_init(void);

#endif
