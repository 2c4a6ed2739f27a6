/* include/ktap.h — test results in KTAP, the kernel's test-output format
 * (Linux Documentation/dev-tools/ktap.rst), on the console
 * (kernel/lib/ktap.c).  Used by the boot option `selftest`. */
#ifndef LULL_KTAP_H
#define LULL_KTAP_H

#include "compiler.h"

/* "KTAP version 1" and the plan "1..n"; the count starts again. */
void ktap_plan(unsigned n);
/* "ok N name" or "not ok N name", N counting from 1. */
void ktap_result(bool ok, const char *fmt, ...) __printf(2, 3);
/* "ok N <what> # SKIP <why>": a test that could not be run, neither
 * passed nor failed. */
void ktap_skip(const char *what, const char *why);
/* Results so far, and how many of them failed. */
unsigned ktap_tests(void);
unsigned ktap_failures(void);

#endif
