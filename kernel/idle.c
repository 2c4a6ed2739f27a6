/* kernel/idle.c — the one idle path (include/idle.h). */
#include "idle.h"

void cpu_idle(void)
{
	sti_hlt();
}
