/* kernel/time/slack.c — a timer's window from its class (include/time/slack.h). */
#include "time/slack.h"
#include "cmdline.h"
#include "errno.h"
#include "kstring.h"

unsigned timer_slack_percent;
unsigned timer_slack_boot_percent;
bool timer_piggyback = true;

/* units_per_s * ms / 1000, without overflow for any units this core uses
 * (1e9 * 1000 fits 64 bits easily). */
static uint64_t cap_units(unsigned ms, uint64_t units_per_s)
{
	return units_per_s * ms / 1000;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

uint64_t timer_slack(enum timer_class c, unsigned pct, uint64_t delta, uint64_t units_per_s)
{
	switch (c) {
	case TIMER_CLASS_DEFAULT:
		return timer_slack(TIMER_CLASS_PERCENT, timer_slack_percent, delta, units_per_s);
	case TIMER_CLASS_NORMAL:
		return min_u64(delta / 8, cap_units(SLACK_NORMAL_CAP_MS, units_per_s));
	case TIMER_CLASS_BACKGROUND:
		return min_u64(delta / 2, cap_units(SLACK_BACKGROUND_CAP_MS, units_per_s));
	case TIMER_CLASS_DEFERRABLE:
		return min_u64(delta, cap_units(SLACK_DEFERRABLE_CAP_MS, units_per_s));
	case TIMER_CLASS_PERCENT:
		if (pct == 0)
			return 0;       /* the common case, exact: no division on every arm */
		if (pct > SLACK_PERCENT_MAX)
			pct = SLACK_PERCENT_MAX;
		/* In two parts, so delta * pct cannot overflow for any delta. */
		return delta / 100 * pct + delta % 100 * pct / 100;
	case TIMER_CLASS_EXACT:
	case TIMER_CLASS_COUNT:
		break;
	}
	return 0;
}

const char *timer_class_name(enum timer_class c)
{
	static const char *const names[TIMER_CLASS_COUNT] = {
		[TIMER_CLASS_DEFAULT] = "default",
		[TIMER_CLASS_EXACT] = "exact",
		[TIMER_CLASS_NORMAL] = "normal",
		[TIMER_CLASS_BACKGROUND] = "background",
		[TIMER_CLASS_DEFERRABLE] = "deferrable",
		[TIMER_CLASS_PERCENT] = "percent",
	};
	return (unsigned)c < TIMER_CLASS_COUNT ? names[c] : "?";
}

int timer_class_parse(const char *s, enum timer_class *c, unsigned *pct)
{
	*pct = 0;
	for (enum timer_class k = TIMER_CLASS_DEFAULT; k < TIMER_CLASS_PERCENT; k++)
		if (strcmp(s, timer_class_name(k)) == 0) {
			*c = k;
			return 0;
		}
	unsigned v = 0;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > SLACK_PERCENT_MAX)
			return -EINVAL;
	}
	*c = TIMER_CLASS_PERCENT;
	*pct = v;
	return 0;
}

/* slack=exact|PERCENT: the global default from boot on. */
static int slack_option(const char *value)
{
	enum timer_class c;
	unsigned pct;
	if (!value || timer_class_parse(value, &c, &pct) != 0 ||
	    (c != TIMER_CLASS_EXACT && c != TIMER_CLASS_PERCENT))
		return -EINVAL;
	timer_slack_percent = timer_slack_boot_percent = pct;
	return 0;
}
BOOT_OPTION("slack", slack_option, "default timer slack: exact or PERCENT (0..100) of how far ahead a timer is armed");

static int piggyback_option(const char *value)
{
	return cmdline_on_off(value, &timer_piggyback);
}
BOOT_OPTION("piggyback", piggyback_option, "run due timers on any wakeup: on (default) or off");
