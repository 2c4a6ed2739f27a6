/* tests/unit/host_pit.c — drivers/timer/pit.c built for the host, its port
 * I/O going to a fake 8254 and port B (tests/unit/host_pit.h), its calls
 * into the kernel going to the stand-ins below.  The driver is included
 * unchanged; only arch/x86.h (port I/O, the interrupt flag) is replaced.
 * Spec for the fake: Intel 8254 datasheet (order 231164), "Control Word
 * Format", "Read-Back Command"; IBM PC/AT Technical Reference, port 61h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_pit.h"

/* In place of arch/x86.h (its guard set, so pit.c's include is empty). */
#define LULL_X86_H
#define X86_EFLAGS_IF   (1u << 9)
static void outb(uint16_t port, uint8_t v);
static uint8_t inb(uint16_t port);
static uint32_t irq_save(void);
static void irq_restore(uint32_t flags);

#include "../../drivers/timer/pit.c"

struct fake_pit_channel fake_pit[3];
uint8_t fake_port_b;
unsigned fake_port_b_writes;
bool fake_port_b_written_with_irqs_on;
bool fake_irqs_off;
bool fake_irq0_requested;
struct clock_event_device *fake_pit_dev;

static bool status_latched[3], count_latched[3], count_high_next[3];

void fake_pit_reset_log(void)
{
	for (unsigned c = 0; c < 3; c++) {
		fake_pit[c].mode = -1;
		fake_pit[c].control_words = fake_pit[c].loads = 0;
		fake_pit[c].loaded_with_irqs_on = false;
	}
	fake_port_b_writes = 0;
	fake_port_b_written_with_irqs_on = false;
}

static void control_word(uint8_t v)
{
	unsigned sel = v >> 6, access = (v >> 4) & 3;
	if (sel == 3) {                         /* read-back: COUNT# bit 5, STATUS# bit 4 */
		for (unsigned c = 0; c < 3; c++)
			if ((v & (2u << c)) && !(v & 0x10))
				status_latched[c] = true;
		return;
	}
	if (access == 0) {                      /* counter latch command */
		count_latched[sel] = true;
		count_high_next[sel] = false;
		return;
	}
	struct fake_pit_channel *ch = &fake_pit[sel];
	ch->mode = (v >> 1) & 7;
	ch->access = access;
	ch->bcd = v & 1;
	ch->pending_bytes = 0;
	ch->control_words++;
}

static void count_byte(unsigned c, uint8_t v)
{
	struct fake_pit_channel *ch = &fake_pit[c];
	ch->loaded_with_irqs_on |= !fake_irqs_off;
	if (ch->access == 1 || (ch->access == 3 && ch->pending_bytes == 0))
		ch->count = (uint16_t)((ch->count & 0xff00) | v);
	else
		ch->count = (uint16_t)((ch->count & 0x00ff) | v << 8);
	if (ch->access == 3 && ch->pending_bytes == 0) {
		ch->pending_bytes = 1;
		return;
	}
	ch->pending_bytes = 0;
	ch->loads++;
}

static void outb(uint16_t port, uint8_t v)
{
	switch (port) {
	case PIT_CMD: control_word(v); break;
	case PIT_CH0: count_byte(0, v); break;
	case PIT_CH2: count_byte(2, v); break;
	case PIT_PORT_B:
		fake_port_b = v & 0x0f;         /* bits 4..7 read only */
		fake_port_b_writes++;
		fake_port_b_written_with_irqs_on |= !fake_irqs_off;
		break;
	default:
		fprintf(stderr, "host_pit: write 0x%02x to port 0x%x, not the PIT's\n", v, port);
		abort();
	}
}

/* OUT is high (a count ran out) whenever the driver asks: the fake does not
 * count down, and the tests never wait for it. */
static uint8_t channel_read(unsigned c)
{
	struct fake_pit_channel *ch = &fake_pit[c];
	if (status_latched[c]) {
		status_latched[c] = false;
		return (uint8_t)(PIT_STATUS_OUT | ch->access << 4 | (ch->mode < 0 ? 0 : ch->mode) << 1 | ch->bcd);
	}
	if (count_latched[c]) {
		bool high = count_high_next[c];
		count_high_next[c] = !high;
		count_latched[c] = !high;
		return high ? ch->count >> 8 : ch->count & 0xff;
	}
	return 0;
}

static uint8_t inb(uint16_t port)
{
	switch (port) {
	case PIT_CH0: return channel_read(0);
	case PIT_CH2: return channel_read(2);
	case PIT_PORT_B: return fake_port_b | PORT_B_OUT2;
	default:
		fprintf(stderr, "host_pit: read from port 0x%x, not the PIT's\n", port);
		abort();
	}
}

static uint32_t irq_save(void)
{
	uint32_t flags = fake_irqs_off ? 0 : X86_EFLAGS_IF;
	fake_irqs_off = true;
	return flags;
}

static void irq_restore(uint32_t flags)
{
	if (flags & X86_EFLAGS_IF)
		fake_irqs_off = false;
}

/* --- what pit.c calls in the kernel --- */

int irq_request(unsigned line, irq_handler_t fn, void *ctx, const char *name)
{
	(void)fn; (void)ctx; (void)name;
	if (line != PIT_IRQ || fake_irq0_requested)
		return -EBUSY;
	fake_irq0_requested = true;
	return 0;
}

void irq_free(unsigned line)
{
	if (line == PIT_IRQ)
		fake_irq0_requested = false;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = getenv("LULL_UNIT_VERBOSE") ? vfprintf(stderr, fmt, ap) : 0;
	va_end(ap);
	return n;
}

int clocksource_register(struct clocksource *cs) { (void)cs; return 0; }
int clockevents_register(struct clock_event_device *dev) { fake_pit_dev = dev; return 0; }
void clockevents_handle_event(struct clock_event_device *dev) { (void)dev; }
void calibrate_set_stopwatch(const struct calibration_stopwatch *sw) { (void)sw; }
void delay_set_fallback(int (*wait_us)(uint32_t us)) { (void)wait_us; }

uint16_t host_pit_periodic_count(void) { return periodic_count; }
bool host_pit_irq_held(void) { return irq_held; }
uint8_t host_pit_port_b_saved(void) { return port_b_saved & 0x0f; }
