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

/* drivers/platform/ps2_keyboard.c: console input by interrupt */
int ps2_keyboard_init(void);

/* drivers/platform/pic8259.c — the pair of 8259A interrupt controllers */
void pic_init(void);                    /* remap to 0x20..0x2F, all masked; hand
                                           the chip to kernel/arch/irq.c */
void pic_mask_all(void);

/* drivers/platform/qemu_debug_exit.c — QEMU's isa-debug-exit device */
void qemu_debug_exit(uint8_t code);     /* QEMU exits with (code << 1) | 1 */

/* drivers/platform/i8042.c — the keyboard controller's reset line */
void i8042_pulse_reset(void);

#endif
