/* include/shell/commands.h — shell commands of the time subsystem
 * (kernel/shell/cmd_time.c), listed in the one table in kernel/shell/commands.c. */
#ifndef LULL_TIME_COMMANDS_H
#define LULL_TIME_COMMANDS_H

#include "compiler.h"

int cmd_uptime(int argc, char **argv);
int cmd_clocksource(int argc, char **argv);
int cmd_clockevent(int argc, char **argv);
int cmd_timers(int argc, char **argv);
int cmd_irqs(int argc, char **argv);
int cmd_sleep(int argc, char **argv);
int cmd_hz(int argc, char **argv);
int cmd_tick(int argc, char **argv);
int cmd_busy(int argc, char **argv);

/* kernel/shell/cmd_dyntick.c */
int cmd_dyntick(int argc, char **argv);
int cmd_wakeups(int argc, char **argv);
int cmd_idle(int argc, char **argv);
int cmd_latency(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_every(int argc, char **argv);
int cmd_alarm(int argc, char **argv);
int cmd_keytimer(int argc, char **argv);

/* Sleep on an hrtimer; -EINTR if Ctrl-C came first. */
int sleep_ns(uint64_t ns);

#endif
