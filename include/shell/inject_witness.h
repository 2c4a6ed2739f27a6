/* include/shell/inject_witness.h — the recovery check that `inject` runs
 * around every fault (kernel/shell/inject_witness.c): timers armed on every
 * CPU before the fault, and the verdict on them after it. */
#ifndef LULL_SHELL_INJECT_WITNESS_H
#define LULL_SHELL_INJECT_WITNESS_H

#include "compiler.h"

#define WITNESS_MARGIN_MS   100         /* witnesses end this long after the fault */

/* Two deadlines per CPU: at `first_ms` and at `last_ms` from now.  0, or
 * -ENOSPC after an error line (the witnesses armed so far stay armed). */
int witness_arm(uint32_t first_ms, uint32_t last_ms);
/* Wait for every witness, then a little longer for any second firing;
 * print the verdict and disarm them.  0, or -EIO after the error lines. */
int witness_report(void);
/* Disarm every witness: for a fault that could not be made. */
void witness_cancel(void);
/* When CPU `cpu`'s later witness (at `last_ms`) is due, in ns. */
uint64_t witness_last_due_ns(unsigned cpu);
/* Sleep `ms` on a timer of this CPU, or until Ctrl-C, or until done()
 * (if not NULL) is true. */
void inject_pause_ms(uint32_t ms, bool (*done)(void));

#endif
