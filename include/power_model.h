/* include/power_model.h — watts next to wakeups: an estimate of one 2005
 * laptop's idle power from how often the CPU wakes (kernel/lib/power_model.c).
 *
 * A model, not a measurement: lull cannot measure power, and QEMU has none.
 * The model is a straight line through the two figures the LWN article
 * "How fast should HZ be?" (August 2005) reports for one laptop idling:
 *     7.59 W with HZ=100, 8.15 W with HZ=1000,
 * i.e. with about 100 and 1000 timer wakeups a second.  So each wakeup a
 * second costs (8.15 - 7.59) W / 900 = 0.62 mW, and a laptop that never
 * woke would idle at 7.59 W - 100 x 0.62 mW = 7.53 W.  A CPU not halted
 * adds POWER_BUSY_UW more, in proportion to its busy share: that figure is
 * an assumption (a 2005 laptop CPU busy against halted), not from the
 * article, whose two points are both idle.
 */
#ifndef LULL_POWER_MODEL_H
#define LULL_POWER_MODEL_H

#include "compiler.h"

#define POWER_AT_HZ100_UW     7590000   /* LWN 2005: idle at HZ=100 */
#define POWER_AT_HZ1000_UW    8150000   /* LWN 2005: idle at HZ=1000 */
#define POWER_HZ_LOW          100
#define POWER_HZ_HIGH         1000
#define POWER_BUSY_UW         10000000  /* assumed: a busy CPU's extra, 10 W */

/* The estimate in microwatts, for `wakeups_milli` thousandths of a wakeup a
 * second and a busy share of `busy_bp` basis points (10000: never halted).
 * Negative errno if it cannot say. */
int64_t power_estimate_uw(uint64_t wakeups_milli, uint32_t busy_bp);

#endif
