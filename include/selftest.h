/* include/selftest.h — the boot option `selftest` (kernel/selftest.c). */
#ifndef LULL_SELFTEST_H
#define LULL_SELFTEST_H

/* If `selftest` was given: check every timer device, print KTAP, and exit
 * QEMU with QEMU_EXIT_PASS or QEMU_EXIT_FAIL (include/power.h). */
void selftest_run_if_requested(void);

#endif
