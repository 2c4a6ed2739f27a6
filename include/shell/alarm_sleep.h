/* include/shell/alarm_sleep.h — the `alarm` tests of sleep_ticks() and
 * sleep_ns() themselves (kernel/shell/alarm_sleep.c), for cmd_alarm.c.
 * Each returns NULL if it passed, else why not (in `why`, or a constant). */
#ifndef LULL_SHELL_ALARM_SLEEP_H
#define LULL_SHELL_ALARM_SLEEP_H

#include "compiler.h"

#define ALARM_LATE_TICKS    1u      /* a wakeup may come one tick late, never early */

/* `alarm sleep`: five sleep_ticks(10) beside another interrupt. */
const char *alarm_check_sleep_ticks(char *why, unsigned size);
/* `alarm interrupt`: Ctrl-C during a long sleep_ticks (ns: sleep_ns). */
const char *alarm_check_interrupted(bool ns, char *why, unsigned size);

#endif
