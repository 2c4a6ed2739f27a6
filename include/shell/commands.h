/* include/shell/commands.h — the shell commands kept in their own files
 * (kernel/shell/cmd_*.c), listed in the one table in kernel/shell/commands.c. */
#ifndef LULL_SHELL_COMMANDS_H
#define LULL_SHELL_COMMANDS_H

#include "compiler.h"
#include "sleep.h"          /* sleep_ns, which many commands use */

/* kernel/shell/cmd_time.c */
int cmd_uptime(int argc, char **argv);
int cmd_clocksource(int argc, char **argv);
int cmd_clockevent(int argc, char **argv);
int cmd_timers(int argc, char **argv);
int cmd_wheel(int argc, char **argv);
int cmd_irqs(int argc, char **argv);
int cmd_sleep(int argc, char **argv);
int cmd_busy(int argc, char **argv);

/* kernel/shell/cmd_tick.c */
int cmd_tick(int argc, char **argv);
int cmd_dyntick(int argc, char **argv);
int cmd_hz(int argc, char **argv);

/* kernel/shell/cmd_wakeups.c */
int cmd_wakeups(int argc, char **argv);
int cmd_idle(int argc, char **argv);
int cmd_power(int argc, char **argv);

/* kernel/shell/cmd_latency.c */
int cmd_latency(int argc, char **argv);

/* kernel/shell/cmd_trace.c */
int cmd_trace(int argc, char **argv);

/* kernel/shell/cmd_exercise.c */
int cmd_every(int argc, char **argv);
int cmd_keytimer(int argc, char **argv);

/* kernel/shell/cmd_inject.c */
int cmd_inject(int argc, char **argv);

/* kernel/shell/cmd_watchdog.c */
int cmd_watchdog(int argc, char **argv);

/* kernel/shell/cmd_smp.c */
int cmd_cpus(int argc, char **argv);
int cmd_timeron(int argc, char **argv);

/* kernel/shell/cmd_stress.c */
int cmd_stress(int argc, char **argv);

/* kernel/shell/cmd_timerload.c */
int cmd_timerload(int argc, char **argv);

/* kernel/shell/cmd_slack.c */
int cmd_slack(int argc, char **argv);

/* kernel/shell/cmd_alarm.c */
int cmd_alarm(int argc, char **argv);

/* kernel/shell/cmd_platform.c */
int cmd_acpi(int argc, char **argv);
int cmd_date(int argc, char **argv);

#endif
