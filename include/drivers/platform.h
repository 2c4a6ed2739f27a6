/* include/drivers/platform.h — what each file in drivers/ offers the rest of the
 * kernel.  Every driver has one init that probes, verifies and registers, or
 * prints one line saying why not and returns -ENODEV. */
#ifndef LULL_DRIVERS_H
#define LULL_DRIVERS_H

#include "compiler.h"

/* drivers/platform/uart16550.c — COM1 */
int uart_init(void);                    /* a console sink (polled) from now on */
int uart_enable_rx_irq(void);           /* interrupt-driven console input */
bool uart_present(void);

/* drivers/platform/vga_text.c — 80x25 text screen */
void vga_init(void);                    /* clear it; a console sink from now on */

/* drivers/platform/framebuffer.c — a text console on the boot loader's
 * linear framebuffer (UEFI): clear it and add it as a console sink (it
 * shows what was printed so far), or say in one line why not and return
 * -ENODEV.  After paging_init: it maps the framebuffer. */
struct boot_info;
int framebuffer_init(const struct boot_info *bi);

/* drivers/platform/ps2_keyboard.c: console input by interrupt, on ISA
 * line PS2_KEYBOARD_IRQ.  A byte with no key in scancode set 1
 * (PS2_NO_KEY_BYTE) is read and dropped. */
#define PS2_KEYBOARD_IRQ 1
#define PS2_NO_KEY_BYTE  0x00
int ps2_keyboard_init(void);

/* drivers/platform/pic8259.c — the pair of 8259A interrupt controllers */
void pic_init(void);                    /* remap to 0x20..0x2F, all masked; hand
                                           the chip to kernel/arch/irq.c */
void pic_mask_all(void);

/* drivers/platform/qemu_debug_exit.c — QEMU's isa-debug-exit device */
void qemu_debug_exit(uint8_t code);     /* QEMU exits with (code << 1) | 1 */

/* drivers/platform/i8042.c — the keyboard controller's reset line */
void i8042_pulse_reset(void);
/* The controller hands `byte` to the keyboard driver as if typed, with
 * IRQ1 (command D2h); false if it does not take commands. */
bool i8042_fake_key_byte(uint8_t byte);

/* drivers/platform/lapic.c — the local APIC, this CPU's interrupt
 * controller.  lapic_init maps it and puts the boot CPU's in virtual wire
 * mode (0, or -ENODEV after one line); the rest is for the timer driver
 * and kernel/smp_boot.c: its registers, EOI, this CPU's APIC ID, IPIs
 * (INIT, start-up at page_phys, or a vector: 0, or -ETIME if the APIC never
 * took it), and an AP's own APIC set up once it runs. */
int lapic_init(void);
bool lapic_present(void);
uint32_t lapic_phys(void);
unsigned lapic_version(void);
uint32_t lapic_read(unsigned reg);
void lapic_write(unsigned reg, uint32_t v);
void lapic_eoi(void);
unsigned lapic_id(void);
int lapic_send_init(unsigned apic_id);
int lapic_send_startup(unsigned apic_id, uint32_t page_phys);
int lapic_send_ipi(unsigned apic_id, unsigned vector);
void lapic_ap_setup(void);
/* The timer's registers (SDM Table 10-1) and the LVT mask bit (10.5.1),
 * shared with drivers/timer/lapic.c. */
enum {
	LAPIC_LVT_TIMER     = 0x320,    /* local vector table: the timer */
	LAPIC_TIMER_INITIAL = 0x380,    /* initial count: writing it starts the timer */
	LAPIC_TIMER_CURRENT = 0x390,    /* current count, counting down (read only) */
	LAPIC_TIMER_DIVIDE  = 0x3E0,    /* divide configuration */
};
#define LVT_MASKED              (1u << 16)  /* no interrupts from this entry */

#endif
