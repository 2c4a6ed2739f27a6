/* kernel/time/tick.c — the tick layer (placeholder until it lands). */
#include "irq.h"
#include "time/clockevent.h"

void tick_irq_enter(unsigned vector) { (void)vector; }
void tick_irq_exit(void) { }
void tick_clockevent_registered(struct clock_event_device *dev) { (void)dev; }
