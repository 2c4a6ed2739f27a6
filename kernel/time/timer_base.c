/* kernel/time/timer_base.c — each CPU's timer wheel as a whole, its struct
 * timer_base: starting it afresh (timer_wheel_init), which wheel files
 * its timers (the wheel= boot option, timer_wheel_switch), filing every
 * timer again for a new tick rate (timer_wheel_remap), and what the shell
 * reads of it (timer_count, timer_for_each, timer_wheel_base).
 *
 * A switch or a remap takes every timer out of the buckets and files it
 * again, under that CPU's lock, by the new wheel's bucket_for
 * (wheel_rebuild); the timers stay pending throughout.
 */
#include "cmdline.h"
#include "errno.h"
#include "kstring.h"
#include "spinlock.h"
#include "timer_wheel.h"

/* The wheel timer_wheel_init starts with: the boot option wheel= sets it. */
static const struct wheel_ops *boot_wheel = &timer_cascade_ops;

static const struct wheel_ops *wheel_ops_of(enum timer_wheel_kind kind)
{
	return kind == TIMER_WHEEL_LEVEL ? &timer_level_ops : &timer_cascade_ops;
}

const char *timer_wheel_name(enum timer_wheel_kind kind)
{
	return wheel_ops_of(kind)->name;
}

int timer_wheel_parse(const char *s, enum timer_wheel_kind *kind)
{
	if (s && strcmp(s, timer_cascade_ops.name) == 0)
		*kind = TIMER_WHEEL_CASCADE;
	else if (s && strcmp(s, timer_level_ops.name) == 0)
		*kind = TIMER_WHEEL_LEVEL;
	else
		return -EINVAL;
	return 0;
}

static int wheel_option(const char *value)
{
	enum timer_wheel_kind kind;
	if (timer_wheel_parse(value, &kind) != 0)
		return -EINVAL;
	boot_wheel = wheel_ops_of(kind);
	return 0;
}
BOOT_OPTION("wheel", wheel_option, "timer wheel: cascade (Linux to 4.7) or level (Linux 4.8)");

enum timer_wheel_kind timer_wheel_current(void)
{
	return READ_ONCE(this_base()->ops)->kind;
}

/* Start from scratch at `now`.  Interrupts off. */
static void wheel_reset(struct timer_base *w, uint32_t now)
{
	for (unsigned b = 0; b < WHEEL_BUCKETS; b++) {
		w->bucket[b] = NULL;
		w->bucket_min[b] = NULL;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(w->occupied); i++)
		w->occupied[i] = 0;
	w->running = NULL;
	w->count = 0;
	w->base = now;
}

/* Any timers still pending are forgotten (they must not be used again
 * without timer_init). */
void timer_wheel_init(uint32_t now)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct timer_base *w = time_timer_base(cpu);
		unsigned long flags = spin_lock_irqsave(&w->lock);
		if (w->in_run) {
			spin_unlock(&w->lock);  /* (a test catches the panic) */
			panic("timer_wheel_init: called from a timer callback");
		}
		w->ops = boot_wheel;
		wheel_reset(w, now);
		w->cpu = cpu;
		spin_unlock_irqrestore(&w->lock, flags);
	}
}

/* Gather every pending timer of one wheel on one list, start the wheel
 * afresh at new_now with `ops`, and queue each again at its mapped expiry
 * (map NULL: unchanged).  The timers stay pending throughout; one whose new
 * expiry is at or before new_now fires on the next run.  Not from a
 * callback: the run in progress counts jiffies at the old rate, and holds
 * timers the old wheel collected. */
static void wheel_rebuild(struct timer_base *w, const struct wheel_ops *ops, uint32_t new_now,
                          uint32_t (*map)(uint32_t expires, void *ctx), void *ctx,
                          const char *who)
{
	if (w->in_run && w == this_base()) {
		spin_unlock(&w->lock);          /* (a test catches the panic) */
		panic("%s: called from a timer callback", who);
	}
	/* Another CPU may be running its due timers (its lock dropped for a
	 * callback): those wait on its running list, which stays as it is. */
	struct timer *all = NULL, *running = w->running;
	for (unsigned b = 0; b < WHEEL_BUCKETS; b++) {
		struct timer *list = w->bucket[b];
		while (list) {
			struct timer *t = list;
			list = t->next;
			t->next = all;
			all = t;
		}
	}
	unsigned count = w->count;
	w->ops = ops;
	wheel_reset(w, new_now);
	w->running = running;
	while (all) {
		struct timer *t = all;
		all = t->next;
		if (map) {
			t->expires = map(t->expires, ctx);
			t->hard = map(t->hard, ctx);
		}
		wheel_place(w, t);
	}
	w->count = count;
}

void timer_wheel_remap(uint32_t new_now, uint32_t (*map)(uint32_t expires, void *ctx), void *ctx)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct timer_base *w = time_timer_base(cpu);
		unsigned long flags = spin_lock_irqsave(&w->lock);
		wheel_rebuild(w, w->ops, new_now, map, ctx, "timer_wheel_remap");
		spin_unlock_irqrestore(&w->lock, flags);
	}
}

/* Each CPU's wheel keeps its base: every timer is filed again from the
 * same "now", so it keeps its window and runs no earlier than before. */
void timer_wheel_switch(enum timer_wheel_kind kind)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct timer_base *w = time_timer_base(cpu);
		unsigned long flags = spin_lock_irqsave(&w->lock);
		wheel_rebuild(w, wheel_ops_of(kind), w->base, NULL, NULL, "timer_wheel_switch");
		spin_unlock_irqrestore(&w->lock, flags);
	}
}
unsigned timer_count_on(unsigned cpu)
{
	return READ_ONCE(time_timer_base(cpu)->count);
}

/* fn runs with interrupts off and must not arm or delete timers. */
void timer_for_each_on(unsigned cpu, void (*fn)(struct timer *t, void *ctx), void *ctx)
{
	struct timer_base *w = time_timer_base(cpu);
	unsigned long flags = spin_lock_irqsave(&w->lock);
	for (unsigned b = 0; b < WHEEL_BUCKETS; b++)
		for (struct timer *t = w->bucket[b]; t; t = t->next)
			fn(t, ctx);
	for (struct timer *t = w->running; t; t = t->next)
		fn(t, ctx);
	spin_unlock_irqrestore(&w->lock, flags);
}


uint32_t timer_wheel_base(void)
{
	return READ_ONCE(this_base()->base);
}
