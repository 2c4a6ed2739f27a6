/* include/power.h — leaving: reboot and power off (kernel/power.c). */
#ifndef LULL_POWER_H
#define LULL_POWER_H

#include "compiler.h"

__noreturn void machine_reboot(void);
__noreturn void machine_poweroff(void);

/* Exit codes seen by the host when lull ends QEMU through isa-debug-exit
 * (QEMU exits with (code << 1) | 1). */
#define QEMU_EXIT_POWEROFF   0x00   /* host sees 1 */
#define QEMU_EXIT_PASS       0x10   /* host sees 33: self-test passed */
#define QEMU_EXIT_FAIL       0x11   /* host sees 35: self-test failed */

#endif
