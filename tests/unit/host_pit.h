/* tests/unit/host_pit.h — drivers/timer/pit.c on a fake 8254 and port B
 * (tests/unit/host_pit.c), for tests/unit/test_pit.c.
 *
 * The fake takes each port write as the chip would: a control word selects
 * a channel's mode and access, then the count's bytes follow in that
 * access's order.  The test reads back what the driver left in the chip,
 * not what an emulator would have made of it: QEMU forgives some of it (a
 * channel-2 gate left closed still counts there, drivers/timer/pit.c). */
#ifndef LULL_HOST_PIT_H
#define LULL_HOST_PIT_H

#include <stdbool.h>
#include <stdint.h>

#include "time/clockevent.h"

struct fake_pit_channel {
	int mode;               /* from the last control word; -1 none since reset */
	unsigned access;        /* RW1 RW0: 1 low byte, 2 high byte, 3 low then high */
	bool bcd;
	unsigned control_words; /* control words written since reset */
	unsigned loads;         /* counts loaded since reset */
	uint16_t count;         /* the last count loaded, taking the first byte as low */
	bool loaded_with_irqs_on;   /* a count byte was written with interrupts on */
	unsigned pending_bytes; /* of a count begun and not finished */
};

extern struct fake_pit_channel fake_pit[3];
extern uint8_t fake_port_b;             /* bits 0..3 of port 0x61, as last written */
extern unsigned fake_port_b_writes;
extern bool fake_port_b_written_with_irqs_on;
extern bool fake_irqs_off;              /* the simulated interrupt flag */
extern bool fake_irq0_requested;        /* pit.c holds IRQ0 (irq_request, not yet irq_free) */
extern struct clock_event_device *fake_pit_dev;     /* as pit_init registered it */

/* Forget what was written (the chip keeps its state otherwise). */
void fake_pit_reset_log(void);

/* pit.c's own state, which its functions keep for each other. */
uint16_t host_pit_periodic_count(void);
bool host_pit_irq_held(void);
uint8_t host_pit_port_b_saved(void);     /* its writable bits, 0..3 */

#endif
