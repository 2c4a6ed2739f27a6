/* kernel/version.c — what was built, from which commit (the Makefile passes
 * LULL_GIT and recompiles this file on every build). */
#include "version.h"
#include "time/jiffies.h"

#ifndef LULL_GIT
#define LULL_GIT "unknown"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

const char lull_build_info[] = "lull " LULL_VERSION " (git " LULL_GIT ", built with HZ=" STR(CONFIG_HZ) ")";
