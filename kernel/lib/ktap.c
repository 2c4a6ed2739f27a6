/* kernel/lib/ktap.c — KTAP result lines on the console (include/ktap.h). */
#include "ktap.h"
#include "kprintf.h"

static unsigned test_no, failures;

void ktap_plan(unsigned n)
{
	test_no = failures = 0;
	kprintf("KTAP version 1\n1..%u\n", n);
}

void ktap_result(bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kprintf("%sok %u ", ok ? "" : "not ", ++test_no);
	kvprintf(fmt, ap);
	kprintf("\n");
	va_end(ap);
	if (!ok)
		failures++;
}

void ktap_skip(const char *what, const char *why)
{
	kprintf("ok %u %s # SKIP %s\n", ++test_no, what, why);
}

unsigned ktap_tests(void)
{
	return test_no;
}

unsigned ktap_failures(void)
{
	return failures;
}
