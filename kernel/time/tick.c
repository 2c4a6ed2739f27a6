/* kernel/time/tick.c — the tick layer (placeholder until the time core lands). */
#include "irq.h"

void tick_irq_enter(unsigned vector) { (void)vector; }
void tick_irq_exit(void) { }
