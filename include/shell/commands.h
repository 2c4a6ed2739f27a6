/* include/shell/commands.h — the shell commands kept in their own files
 * (kernel/shell/cmd_*.c), listed in the one table in kernel/shell/commands.c,
 * and the ranges their numbers must lie in.
 *
 * Each limit is here, not in its command's file, because two places use
 * it: the handler parses with it (parse_u32, include/shell/args.h), and the
 * table builds the command's usage line from it with RANGE(), so the usage
 * states exactly the range the handler enforces ("SECONDS(1..3600)").
 * Written as plain numbers, with no suffix: RANGE() prints them as they
 * are spelled.  tests/meta/test_usage.py checks that every range a handler
 * parses is stated so. */
#ifndef LULL_SHELL_COMMANDS_H
#define LULL_SHELL_COMMANDS_H

#include "compiler.h"
#include "sleep.h"          /* sleep_ns, which many commands use */
#include "task.h"           /* SLICE_MAX_MS, in `slice`'s usage */

/* "(LO..HI)", spelled from the constants themselves. */
#define SHELL_STRINGIFY(x)  #x
#define SHELL_SPELL(x)      SHELL_STRINGIFY(x)
#define RANGE(lo, hi)       "(" SHELL_SPELL(lo) ".." SHELL_SPELL(hi) ")"

/* kernel/shell/cmd_time.c */
#define SLEEP_MAX_MS        86400000    /* sleep: one day */
#define BUSY_MAX_S          3600        /* busy: an hour */
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
/* `wakeups reset` and `dyntick reset`: every CPU's wakeup and skip
 * counters start again, and one line says so (cmd_wakeups.c). */
int wakeups_reset_and_say(void);
int cmd_hz(int argc, char **argv);

/* kernel/shell/cmd_wakeups.c */
#define IDLE_MAX_S          3600        /* idle and power: an hour */
#define POWER_DEFAULT_S     5           /* power without SECONDS */
int cmd_wakeups(int argc, char **argv);
int cmd_idle(int argc, char **argv);
int cmd_power(int argc, char **argv);

/* kernel/shell/cmd_latency.c */
#define LATENCY_MAX_COUNT   1000000     /* wakeups measured */
#define LATENCY_MIN_US      50          /* the shortest period: shorter and
                                           the callbacks are all it does */
#define LATENCY_MAX_US      1000000     /* the longest period: a second */
int cmd_latency(int argc, char **argv);

/* kernel/shell/cmd_trace.c (its limit, TRACE_MAX_S, is the buffer's:
 * include/time/trace.h) */
int cmd_trace(int argc, char **argv);

/* kernel/shell/cmd_exercise.c */
#define EVERY_MAX_MS        3600000     /* every: an hour */
#define KEYTIMER_MAX_MS     60000       /* keytimer: a minute */
int cmd_every(int argc, char **argv);
int cmd_keytimer(int argc, char **argv);

/* kernel/shell/cmd_inject.c */
#define INJECT_MAX_TICKS    1000        /* lost-tick N */
#define INJECT_MAX_SPURIOUS 10000       /* spurious-tick N */
#define INJECT_MAX_MS       10000       /* tsc-step, irq-storm, late-wakeup */
#define INJECT_MAX_PPM      100000      /* tsc-skew: 10% */
int cmd_inject(int argc, char **argv);

/* kernel/shell/cmd_watchdog.c */
int cmd_watchdog(int argc, char **argv);

/* kernel/shell/cmd_task.c */
#define SLICE_MIN_MS        1           /* slice: at least a jiffy, checked against HZ */
int cmd_spawn(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_kill(int argc, char **argv);
int cmd_slice(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_preempt(int argc, char **argv);
#define TOP_DEFAULT_S   5
#define TOP_MAX_S       3600

/* kernel/shell/cmd_smp.c */
#define TIMERON_MAX_MS      60000       /* timeron: a minute */
int cmd_cpus(int argc, char **argv);
int cmd_timeron(int argc, char **argv);

/* kernel/shell/cmd_stress.c */
#define STRESS_MAX_S        60          /* stress: a minute */
int cmd_stress(int argc, char **argv);

/* kernel/shell/cmd_timerload.c */
#define TIMERLOAD_MAX_TIMERS 100        /* leaves hrtimer slots for the shell's
                                           own sleep and the other commands */
#define TIMERLOAD_MAX_MS    3600000     /* the longest period: an hour */
#define TIMERLOAD_MAX_S     3600        /* the longest run: an hour */
#define TIMERLOAD_MAX_SEED  0xffffffff  /* any 32-bit seed but 0 (xorshift32 stays at 0) */
int cmd_timerload(int argc, char **argv);

/* kernel/shell/cmd_slack.c (PERCENT's limit, SLACK_PERCENT_MAX, is the time
 * core's: include/time/slack.h) */
int cmd_slack(int argc, char **argv);

/* kernel/shell/cmd_alarm.c */
int cmd_alarm(int argc, char **argv);

/* kernel/shell/cmd_platform.c */
int cmd_acpi(int argc, char **argv);
int cmd_date(int argc, char **argv);

#endif
