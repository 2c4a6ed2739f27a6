/* drivers/platform/uart16550.c — the 16550A UART on COM1: lull's serial console.
 *
 * Spec: National Semiconductor PC16550D datasheet (June 1995), "Register
 * Description" (Table II) and section 8 (FIFO interrupt mode).  We use COM1
 * at 115200 baud, 8 data bits, no parity, 1 stop bit.  Output is polled (it
 * must work from a panic, with interrupts off) and reaches the console as a
 * sink; input raises IRQ4 and the handler drains the receive FIFO into the
 * console's ring buffer, so a pasted line is not lost while the shell is busy.
 */
#include "drivers/platform.h"
#include "arch/smp.h"
#include "console.h"
#include "errno.h"
#include "arch/irq.h"
#include "arch/x86.h"

#define COM1_BASE       0x3F8           /* IBM PC/AT I/O map */
#define COM1_IRQ        4

/* Register offsets from the base (datasheet Table II). */
enum {
	UART_RBR = 0,   /* receive buffer (read, DLAB=0) */
	UART_THR = 0,   /* transmit holding (write, DLAB=0) */
	UART_DLL = 0,   /* divisor latch low (DLAB=1) */
	UART_IER = 1,   /* interrupt enable (DLAB=0) */
	UART_DLM = 1,   /* divisor latch high (DLAB=1) */
	UART_FCR = 2,   /* FIFO control (write) */
	UART_LCR = 3,   /* line control */
	UART_MCR = 4,   /* modem control */
	UART_LSR = 5,   /* line status */
	UART_SCR = 7,   /* scratch */
};

#define UART_IER_RDA        0x01    /* interrupt on received data available */
#define UART_FCR_ENABLE     0x01
#define UART_FCR_CLEAR_RX   0x02
#define UART_FCR_CLEAR_TX   0x04
#define UART_FCR_TRIGGER_8  0x80    /* RX interrupt at 8 bytes (or timeout) */
#define UART_LCR_8N1        0x03    /* 8 data bits, no parity, 1 stop bit */
#define UART_LCR_DLAB       0x80    /* divisor latch access */
#define UART_MCR_DTR        0x01
#define UART_MCR_RTS        0x02
#define UART_MCR_OUT2       0x08    /* gates the IRQ line on PC boards */
#define UART_MCR_LOOP       0x10    /* internal loopback, for the probe */
#define UART_LSR_DR         0x01    /* data ready */
#define UART_LSR_THRE       0x20    /* transmit holding register empty */

#define UART_CLOCK_HZ       1843200 /* standard PC crystal */
#define UART_BAUD           115200
#define UART_DIVISOR        (UART_CLOCK_HZ / 16 / UART_BAUD)   /* = 1 */
#define UART_PROBE_BYTE     0xA5
/* A transmitter that never drains (no UART there at all) must not hang the
 * kernel: give up on a byte after this many polls. */
#define UART_TX_SPIN_LIMIT  100000

static bool present;
static bool rx_on;              /* uart_enable_rx_irq() has run */

static uint8_t reg_read(unsigned r) { return inb(COM1_BASE + r); }
static void reg_write(unsigned r, uint8_t v) { outb(COM1_BASE + r, v); }

bool uart_present(void) { return present; }

/* QUIRK: a paste is lost while lull prints.
 * Symptom: pasted lines arrive with bytes missing ("upteep 9") and Bochs
 * logs "com1: receive FIFO overflow" over and over for one long paste
 * (docs/robustness.md, "Quirks found", has the count).
 * Hardware: any 16550 at 115200 baud, and Bochs 2.7, which sends and
 * receives at the line's rate (10 bits a byte: 87 us); QEMU hides it, as
 * its UART sends at once and hands over input only while the FIFO has
 * room.
 * kvprintf() holds interrupts off for a whole message, and each byte waits
 * here for the transmitter: a 30-byte line is 2.6 ms without the receive
 * interrupt, and 16 bytes of FIFO last 1.4 ms.  Workaround: while waiting
 * to send with interrupts off, move received bytes to the console, as the
 * interrupt would.  Only then, and only on the boot CPU, the one the 8259
 * interrupts (IRQ4 is its): there this and uart_irq() cannot run at once,
 * so the console's ring keeps one producer and the bytes their order.
 * (With interrupts on, uart_irq() drains the FIFO; draining here too lost
 * and reordered bytes when it cut in between LSR, RBR and the push.)
 * Reference: PC16550D datasheet, LSR bit 1 (overrun error); Bochs 2.7
 * iodev/serial.cc, "receive FIFO overflow". */
static void uart_send(uint8_t b)
{
	bool drain = rx_on && !irqs_enabled() && this_cpu()->index == 0;
	for (unsigned i = 0; i < UART_TX_SPIN_LIMIT; i++) {
		uint8_t lsr = reg_read(UART_LSR);
		if (drain && (lsr & UART_LSR_DR))
			console_input_push((char)reg_read(UART_RBR));
		if (lsr & UART_LSR_THRE)
			break;
	}
	reg_write(UART_THR, b);
}

/* Terminals want CR LF where the kernel writes \n. */
static void uart_putc(char c)
{
	if (c == '\n')
		uart_send('\r');
	uart_send((uint8_t)c);
}

static struct console_sink uart_sink = { .name = "uart", .putc = uart_putc };

int uart_init(void)
{
	reg_write(UART_IER, 0);
	reg_write(UART_LCR, UART_LCR_DLAB);
	reg_write(UART_DLL, UART_DIVISOR & 0xff);
	reg_write(UART_DLM, UART_DIVISOR >> 8);
	reg_write(UART_LCR, UART_LCR_8N1);
	reg_write(UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX |
	                    UART_FCR_TRIGGER_8);

	/* Probe: in loopback mode what we send comes straight back. */
	reg_write(UART_MCR, UART_MCR_LOOP | UART_MCR_RTS | UART_MCR_OUT2);
	reg_write(UART_THR, UART_PROBE_BYTE);
	for (unsigned i = 0; i < 1000 && !(reg_read(UART_LSR) & UART_LSR_DR); i++)
		;
	if (reg_read(UART_RBR) != UART_PROBE_BYTE)
		return -ENODEV;         /* nothing to print the news on: stay quiet */

	reg_write(UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
	present = true;
	console_add_sink(&uart_sink);
	return 0;
}

static void uart_irq(void *ctx)
{
	UNUSED(ctx);
	while (reg_read(UART_LSR) & UART_LSR_DR)
		console_input_push((char)reg_read(UART_RBR));
}

int uart_enable_rx_irq(void)
{
	if (!present)
		return -ENODEV;
	while (reg_read(UART_LSR) & UART_LSR_DR)   /* drop bytes from before boot */
		(void)reg_read(UART_RBR);
	int rc = irq_request(COM1_IRQ, uart_irq, NULL, "uart");
	if (rc)
		return rc;
	reg_write(UART_IER, UART_IER_RDA);
	rx_on = true;
	return 0;
}
