/* kernel/lib/lab.c — the line a lab's stub prints (include/lab.h).
 *
 * A stub may sit on a hot path (the tick, the timer wheel), so each lab is
 * reported once, not once per call.  The host unit tests link this file
 * too (Makefile), where the line goes to stderr. */
#include "lab.h"
#include "compiler.h"

#ifdef LULL_HOST
#include <stdio.h>
#define lab_print(...) fprintf(stderr, __VA_ARGS__)
#else
#include "kprintf.h"
#define lab_print(...) kprintf(__VA_ARGS__)
#endif

#define LABS_REPORTED_MAX 8     /* more than there are labs */

static const char *reported[LABS_REPORTED_MAX];

void lab_not_implemented(const char *lab)
{
	unsigned i = 0;
	for (; i < LABS_REPORTED_MAX && reported[i]; i++)
		if (reported[i] == lab || __builtin_strcmp(reported[i], lab) == 0)
			return;
	if (i < LABS_REPORTED_MAX)
		reported[i] = lab;
	lab_print("lab %s: not implemented\n", lab);
}
