/* kernel/time/percpu.c — the time core's per-CPU state (include/time/percpu.h). */
#include "time/percpu.h"

struct time_cpu time_cpus[TIME_MAX_CPUS];
