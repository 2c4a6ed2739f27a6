// SOURCES: kernel/time/timer.c kernel/time/timer_bucket.c kernel/time/timer_cascade.c kernel/time/timer_expiry.c kernel/time/timer_base.c kernel/time/timer_level.c kernel/time/slack.c kernel/time/jiffies.c tests/unit/host_arch.c kernel/time/percpu.c
/* tests/unit/test_timer_wheel.c — both wheels against a model.
 *
 * The model is an array of armed timers.  For each it keeps the jiffy the
 * timer must fire on ("due"): on the cascading wheel its expiry, or — if
 * that was already behind the wheel's base when it was armed — the base
 * itself, the next jiffy the wheel processes.  On the level wheel, its
 * expiry rounded up to its level's granularity (model_level_expiry, from
 * the table in kernel/time/timer_level.c).  Every callback checks that it
 * runs on exactly its due jiffy, that nothing armed was due earlier (order,
 * and nothing skipped), and every run checks that nothing due by its `now`
 * is left.  On the level wheel each callback also checks the promise:
 * never early, less than one granularity late, and the granularity at most
 * 8/63 of how far ahead the timer was filed.  After every operation
 * timer_next_expiry() must equal the model's minimum wake-up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "time/percpu.h"
#include "time/jiffies.h"
#include "time/timer.h"

#include "host_test.h"

static uint32_t rnd_below(uint32_t n) { return rnd32() % n; }

#define NT 128

struct tt {
	struct timer t;
	bool armed;             /* the model's view */
	uint32_t expires;
	uint32_t due;           /* the jiffy it must fire on */
	unsigned fired;
	uint32_t fired_at;
	void (*then)(struct tt *x);     /* more work in the callback */
	uint32_t period;
	uint32_t armed_base;    /* the base it was armed at (level wheel) */
};

static struct tt T[NT];
static char names[NT][8];       /* "t0" .. "t127": timer_next_name's answers */
static uint32_t model_base;     /* the next jiffy the wheel should process */
static uint32_t run_now;
static bool running;
static unsigned fired_total;

/* a - b as a signed distance: the wrap-safe comparison. */
static int32_t sdiff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }

/* Whether x's due jiffy is before j.  Measured from the jiffy before x
 * was armed (j is never earlier: a callback arms for base = its jiffy + 1):
 * on the level wheel the farthest timers round up to more than 2^31
 * jiffies past that (filed again on the way), beyond a signed distance. */
static bool due_before(const struct tt *x, uint32_t j)
{
	uint32_t from = x->armed_base - 1;
	return x->due - from < j - from;
}

/* Which wheel the tests below run on (start_at switches to it). */
static enum timer_wheel_kind kind = TIMER_WHEEL_CASCADE;

/* The level wheel, as its header comment's table says: level L (granularity
 * 8^L) takes what is at most 63 granularities ahead; the expiry rounds up
 * to a multiple of it.  Beyond level 8, level 8's farthest bucket.  The
 * granularity used goes to *gran. */
static uint32_t model_level_expiry(uint32_t e, uint32_t base, uint32_t *gran)
{
	*gran = 1;
	if (sdiff(e, base) < 0)
		return base;
	uint32_t g = 1;
	for (unsigned level = 0; level < 9; level++, g *= 8)
		if (e - base <= 63 * g) {
			*gran = g;
			return (e + g - 1) / g * g;     /* (wraps as the wheel does) */
		}
	g /= 8;
	*gran = g;
	return (base + g - 1) / g * g + 63 * g;
}

/* The level wheel's chain for x: the bucket expiries it passes through
 * (more than one only beyond level 8's reach), stopped at the first not
 * yet reached by `upto`, or at the one it runs in. */
static uint32_t model_level_bucket(const struct tt *x, uint32_t upto, uint32_t *gran, uint32_t *from)
{
	uint32_t a = x->armed_base;
	uint32_t e = model_level_expiry(x->expires, a, gran);
	while (sdiff(e, x->expires) < 0 && sdiff(e, upto) < 0) {
		a = e;
		e = model_level_expiry(x->expires, a, gran);
	}
	if (from)
		*from = a;
	return e;
}

/* When the idle CPU must wake for x: its hard end (here its soft end: the
 * tests arm with the default, exact class); on the level wheel not before
 * the bucket it is in now comes up. */
static uint32_t model_wake(const struct tt *x)
{
	if (kind == TIMER_WHEEL_CASCADE || due_before(x, model_base))
		return x->expires;      /* (or already taken to be run) */
	uint32_t g, e = model_level_bucket(x, model_base, &g, NULL);
	return sdiff(e, x->expires) > 0 ? e : x->expires;
}

static void model_note_armed(struct tt *x, uint32_t expires)
{
	x->armed = true;
	x->expires = expires;
	x->armed_base = model_base;
	x->due = sdiff(expires, model_base) < 0 ? model_base : expires;
	if (kind == TIMER_WHEEL_LEVEL) {
		uint32_t g;
		x->due = model_level_bucket(x, x->expires, &g, NULL);
	}
}

static const char *wheel_name(void) { return kind == TIMER_WHEEL_CASCADE ? "cascading" : "level"; }

/* Where the wheel keeps x, in words: its bucket and that bucket's level. */
static const char *where(const struct tt *x)
{
	static char buf[96];
	unsigned b = x->t.bucket;
	if (!timer_pending(&x->t))
		return "in no bucket";
	if (b == 0xFFFFu)
		return "on the running list";
	unsigned level = kind == TIMER_WHEEL_LEVEL ? b / 64 : b < 256 ? 0 : 1 + (b - 256) / 64;
	snprintf(buf, sizeof(buf), "in bucket %u (level %u)", b, level);
	return buf;
}

/* Why a timer due by now is still pending, on the cascading wheel: which
 * step passed it by. */
static const char *why_still(const struct tt *x)
{
	unsigned b = x->t.bucket;
	if (kind != TIMER_WHEEL_CASCADE)
		return "";
	if (!timer_pending(&x->t))
		return ": lost";
	if (b == 0xFFFFu)
		return "";
	return b < 256 ? ": its jiffy's level-0 bucket was not collected (cascade_collect)"
	               : ": its bucket was never cascaded down (wheel_cascade)";
}

/* The cascading wheel's bucket for a timer due at `expires`, seen from
 * `base` (timer.c's header comment, and the wheel lab's handout). */
static unsigned model_cascade_bucket(uint32_t expires, uint32_t base)
{
	static const unsigned shift[] = { 0, 8, 14, 20, 26 }, size[] = { 256, 64, 64, 64, 64 },
	                      first[] = { 0, 256, 320, 384, 448 };
	uint32_t d = expires - base;
	if (sdiff(expires, base) < 0)
		return base % 256;
	unsigned l = 0;
	while (l < 4 && d >= (uint32_t)size[l] << shift[l])
		l++;
	return first[l] + ((expires >> shift[l]) & (size[l] - 1));
}

/* Just armed, x is in the bucket the rule names (cascade_bucket_for). */
static void check_filed(const struct tt *x)
{
	uint32_t base = timer_wheel_base();
	unsigned want = model_cascade_bucket(x->expires, base), got = x->t.bucket;
	if (kind != TIMER_WHEEL_CASCADE || got == want)
		return;
	struct tt shown = *x;
	shown.t.bucket = (uint16_t)want;
	char level_want[96];
	snprintf(level_want, sizeof(level_want), "%s", where(&shown));
	int32_t ahead = sdiff(x->expires, base);
	fail_msg("cascade_bucket_for: t%u, armed at base %#x for %#x (%u %s), went %s; want %s (%s)",
	         (unsigned)(x - T), base, x->expires, ahead < 0 ? 0u - (uint32_t)ahead : (uint32_t)ahead,
	         ahead < 0 ? "behind" : "ahead", where(x), level_want,
	         sdiff(x->expires, base) < 0 ? "already due: the base's own level-0 bucket"
	                                     : "the first level whose span exceeds the distance, in it the "
	                                       "bucket of the expiry's own bits");
}

static void model_arm(struct tt *x, uint32_t expires)
{
	assert_int_equal(timer_mod(&x->t, expires), x->armed);
	model_note_armed(x, expires);
	check_filed(x);
}

/* timer_add: only for a timer the model says is not armed. */
static void model_add(struct tt *x, uint32_t expires)
{
	assert_false(x->armed);
	timer_add(&x->t, expires);
	model_note_armed(x, expires);
	check_filed(x);
}

static void model_del(struct tt *x)
{
	assert_int_equal(timer_del(&x->t), x->armed);
	x->armed = false;
}

static void check_next_expiry(void)
{
	bool any = false;
	int32_t best = 0;
	unsigned first = 0;
	for (unsigned i = 0; i < NT; i++)
		if (T[i].armed && (!any || sdiff(model_wake(&T[i]), model_base) < best)) {
			best = sdiff(model_wake(&T[i]), model_base);
			any = true;
			first = i;
		}
	uint32_t got = 0;
	bool found = timer_next_expiry(&got);
	if (found != any)
		fail_msg("timer_next_expiry (wheel_earliest) found %s, with %s armed", found ? "a timer" : "none",
		         any ? "timers" : "none");
	if (any && got != model_base + (uint32_t)best) {
		const char *note = best < 0 ? " (already due, behind the base: distances from the base are signed)" :
		                   model_wake(&T[first]) != T[first].expires ?
		                   " (the level wheel runs its bucket at the bucket's block start, not before)" : "";
		print_error("next expiry (wheel_earliest, %s wheel) %#x, model %#x (base %#x): the earliest is "
		            "t%u, expires %#x, %s%s\n", wheel_name(), got, model_base + (uint32_t)best, model_base,
		            first, T[first].expires, where(&T[first]), note);
		fail();
	}
	/* The name is that of an armed timer with that expiry. */
	const char *name = timer_next_name();
	if (!any) {
		assert_null(name);
		return;
	}
	assert_non_null(name);
	unsigned i = (unsigned)(name - names[0]) / sizeof(names[0]);
	assert_true(i < NT && name == names[i]);
	assert_true(T[i].armed);
	assert_int_equal(model_wake(&T[i]), got);
}

/* Each bucket's own state agrees with its list: its occupancy bit is set
 * exactly when the list is not empty, and its cached earliest
 * (bucket_min) is unknown (NULL) or a timer of that list with no earlier
 * hard end in it.  bucket_forget keeps both true as timers leave; a stale
 * bit or cache misleads the run and the next-expiry query. */
static void check_buckets(void)
{
	struct timer_base *w = time_timer_base(0);
	for (unsigned b = 0; b < WHEEL_BUCKETS; b++) {
		bool bit = (w->occupied[b / BITS_PER_WORD] >> (b % BITS_PER_WORD)) & 1;
		if (bit != (w->bucket[b] != NULL))
			fail_msg("bucket %u on the %s wheel is %s, but its occupancy bit is %s (bucket_forget: clear "
			         "the bit when the last timer leaves)", b, wheel_name(), w->bucket[b] ? "not empty" : "empty",
			         bit ? "set" : "clear");
		const struct timer *min = w->bucket_min[b];
		bool in = false;
		for (const struct timer *t = w->bucket[b]; min && t; t = t->next) {
			in |= t == min;
			if (sdiff(t->hard, w->base) < sdiff(min->hard, w->base))
				fail_msg("bucket %u's cached earliest (bucket_min) is %s, hard end %#x, but %s in it ends "
				         "at %#x", b, min->name, min->hard, t->name, t->hard);
		}
		if (min && !in)
			fail_msg("bucket %u's cached earliest (bucket_min) is %s, which is no longer in it "
			         "(bucket_forget: forget the cached timer when it leaves)", b, min->name);
	}
}

static void check_model(void)
{
	unsigned armed = 0;
	for (unsigned i = 0; i < NT; i++) {
		armed += T[i].armed;
		if (timer_pending(&T[i].t) != T[i].armed)
			fail_msg("timer t%u (expires %#x, due %#x) is %s on the %s wheel, but %s (base %#x)", i,
			         T[i].expires, T[i].due, timer_pending(&T[i].t) ? "pending" : "not pending",
			         wheel_name(), T[i].armed ? "armed and not yet fired: lost?" : "not armed",
			         model_base);
	}
	assert_int_equal(timer_count(), armed);
	check_buckets();
	check_next_expiry();
	if (!running)
		assert_int_equal(timer_wheel_base(), model_base);
	assert_false(host_irqs_disabled && !running);
}

static void cb(struct timer *t)
{
	struct tt *x = container_of(t, struct tt, t);
	assert_false(host_irqs_disabled);
	assert_true(running);
	assert_true(x->armed);
	assert_false(timer_pending(t));
	uint32_t jiffy = timer_wheel_base() - 1;
	if (jiffy != x->due) {
		print_error("timer %u (expires %#x, armed at base %#x, %u ahead) fired on %#x, %u jiffies %s "
		            "(due %#x) on the %s wheel\n", (unsigned)(x - T), x->expires, x->armed_base,
		            x->expires - x->armed_base, jiffy, sdiff(jiffy, x->due) < 0 ? x->due - jiffy : jiffy - x->due,
		            sdiff(jiffy, x->due) < 0 ? "early" : "late", x->due, wheel_name());
		fail();
	}
	assert_true(sdiff(run_now, jiffy) >= 0);
	/* The level wheel's promise, for a timer armed for the future. */
	if (kind == TIMER_WHEEL_LEVEL && sdiff(x->expires, x->armed_base) >= 0) {
		uint32_t g, from;
		model_level_bucket(x, x->expires, &g, &from);
		uint32_t late = jiffy - x->expires, ahead = x->expires - from;
		if (sdiff(jiffy, x->expires) < 0 || late >= g || (g > 1 && (uint64_t)g * 63 > (uint64_t)ahead * 8)) {
			print_error("timer %u (expires %#x, filed %u ahead) fired %u late, granularity %u\n",
			            (unsigned)(x - T), x->expires, ahead, late, g);
			fail();
		}
	}
	/* Every earlier jiffy is done: nothing armed may be due before this. */
	for (unsigned i = 0; i < NT; i++)
		if (T[i].armed && &T[i] != x && due_before(&T[i], jiffy)) {
			print_error("timer %u due %#x missed (expires %#x, armed at base %#x, now %s%s); now "
			            "running %#x on the %s wheel\n", i, T[i].due, T[i].expires, T[i].armed_base,
			            where(&T[i]), why_still(&T[i]), jiffy, wheel_name());
			fail();
		}
	/* The jiffy's whole bucket went to the running list before any of
	 * its callbacks ran. */
	for (unsigned i = 0; i < NT; i++)
		if (T[i].armed && &T[i] != x && T[i].due == jiffy && kind == TIMER_WHEEL_CASCADE &&
		    timer_pending(&T[i].t) && T[i].t.bucket != 0xFFFFu) {
			print_error("timer %u, due %#x like the one running, is still %s while its jiffy runs%s\n",
			            i, T[i].due, where(&T[i]), why_still(&T[i]));
			fail();
		}
	x->armed = false;
	x->fired++;
	x->fired_at = jiffy;
	fired_total++;
	model_base = jiffy + 1;
	if (x->then)
		x->then(x);
}

static void run(uint32_t now)
{
	uint32_t old_base = model_base;
	running = true;
	run_now = now;
	timer_run_expired(now);
	running = false;
	if (sdiff(now, model_base) >= 0)
		model_base = now + 1;
	jiffies_64 = model_base - 1;    /* the tick's jiffy: the wheel is not stale */
	assert_false(host_irqs_disabled);
	/* Measured from the base, not from `now`: after a stale run, a timer
	 * 2^31 - 1 ahead of the base would look past from `now`. */
	for (unsigned i = 0; i < NT; i++)
		if (T[i].armed && due_before(&T[i], model_base)) {
			print_error("timer %u (expires %#x, armed at base %#x) due %#x still armed, %s, after a run "
			            "from %#x to %#x on the %s wheel%s\n", i, T[i].expires, T[i].armed_base, T[i].due,
			            where(&T[i]), old_base, now, wheel_name(), why_still(&T[i]));
			fail();
		}
	check_model();
}

/* timer_wheel_init, even after a test failed inside a callback: cmocka's
 * failure jumps out of timer_run_expired (callbacks run with the lock
 * dropped), which leaves the wheel looking mid-run, and every later test
 * would then stop at timer_wheel_init's "called from a timer callback"
 * panic. */
static void fresh_wheel(uint32_t base)
{
	struct timer_base *w = time_timer_base(0);
	w->in_run = false;
	w->firing = NULL;
	w->running = NULL;
	running = false;
	host_irqs_disabled = false;
	timer_wheel_init(base);
}

static void start_at(uint32_t base)
{
	fresh_wheel(base);
	timer_wheel_switch(kind);
	jiffies_64 = base - 1;
	model_base = base;
	memset(T, 0, sizeof(T));
	for (unsigned i = 0; i < NT; i++) {
		snprintf(names[i], sizeof(names[i]), "t%u", i);
		timer_init(&T[i].t, cb, names[i]);
	}
	fired_total = 0;
}

/* Where sequences start: before the 32-bit wrap, at 0, and at random. */
static uint32_t start_for(unsigned variant)
{
	switch (variant % 3) {
	case 0: return 0xFFFFFFFFu - 300 - rnd_below(200);
	case 1: return 0;
	default: return rnd32();
	}
}

/* ------------------------------------------------------------ random */

static uint32_t random_expiry(void)
{
	unsigned r = rnd_below(100);
	if (r < 10)
		return model_base - 1 - rnd_below(1000);        /* already due */
	if (r < 15)
		return model_base;
	if (r < 40)
		return model_base + rnd_below(300);
	if (r < 65)
		return model_base + rnd_below(20000);
	if (r < 90)
		return model_base + rnd_below(3000000);
	if (r < 97)
		return model_base + rnd_below(1u << 28);        /* level 4 */
	return model_base + 0x7FFFFFFFu - rnd_below(1000);  /* the farthest */
}

/* Callbacks in the random test re-arm themselves, delete or arm others
 * (perhaps one waiting in the same jiffy), and ask for the next expiry. */
static void random_then(struct tt *x)
{
	unsigned r = rnd_below(100);
	if (r < 25)
		model_arm(x, random_expiry());
	else if (r < 35)
		model_del(&T[rnd_below(NT)]);
	else if (r < 45)
		model_arm(&T[rnd_below(NT)], random_expiry());
	if (rnd_below(4) == 0)
		check_next_expiry();
}

static bool model_min_due(uint32_t *due)
{
	bool any = false;
	for (unsigned i = 0; i < NT; i++)
		if (T[i].armed && (!any || T[i].due - model_base < *due - model_base)) {
			*due = T[i].due;
			any = true;
		}
	return any;
}

static void random_sequence(uint64_t seed, unsigned variant, unsigned ops)
{
	rng_state = seed;
	start_at(start_for(variant));
	for (unsigned i = 0; i < NT; i++)
		T[i].then = random_then;
	unsigned runs = 0;
	for (unsigned op = 0; op < ops; op++) {
		unsigned r = rnd_below(100);
		struct tt *x = &T[rnd_below(NT)];
		if (r < 35) {
			model_arm(x, random_expiry());
		} else if (r < 45) {
			model_del(x);
		} else if (r < 80) {
			unsigned k = rnd_below(100);
			uint32_t step = k < 50 ? 1 + rnd_below(3) : k < 80 ? 1 + rnd_below(300) :
			                k < 95 ? 1 + rnd_below(20000) : 1 + rnd_below(100000);
			run(model_base - 1 + step);
			runs++;
		} else if (r < 88) {
			/* Jump straight to the next due timer (or just past it). */
			uint32_t due = 0;
			if (model_min_due(&due)) {
				uint32_t now = due;
				if (sdiff(due, model_base) < 0x7FFFFFF0)
					now += rnd_below(3);
				run(now);
				runs++;
			}
		} else {
			/* A run for a jiffy already processed does nothing. */
			unsigned before = fired_total;
			run(model_base - 1 - rnd_below(5));
			assert_int_equal(fired_total, before);
		}
		check_model();
	}
	assert_true(runs > ops / 3);
	assert_true(fired_total > ops / 10);
}

static void test_random_against_model(void **state)
{
	(void)state;
	for (unsigned variant = 0; variant < 9; variant++)
		random_sequence(1000 + variant, variant, 6000);
}

/* cmocka setup and teardown: the test runs on the level wheel. */
static int on_level_wheel(void **state)
{
	(void)state;
	kind = TIMER_WHEEL_LEVEL;
	return 0;
}

static int on_cascade_wheel(void **state)
{
	(void)state;
	kind = TIMER_WHEEL_CASCADE;
	return 0;
}

/* Re-arming pending timers a little earlier or later, so the new expiry
 * often falls in the bucket the timer is already in (timer_mod then only
 * updates it and the bucket's cached earliest timer), against the model. */
static void test_random_nudges_against_model(void **state)
{
	(void)state;
	for (unsigned variant = 0; variant < 6; variant++) {
		rng_state = 2000 + variant;
		start_at(start_for(variant));
		for (unsigned i = 0; i < NT; i++)
			model_arm(&T[i], random_expiry());
		check_model();
		for (unsigned op = 0; op < 6000; op++) {
			struct tt *x = &T[rnd_below(NT)];
			unsigned r = rnd_below(100);
			if (!x->armed || r < 5)
				model_arm(x, random_expiry());
			else if (r < 75)
				/* -32 .. +31 jiffies */
				model_arm(x, x->expires - 32 + rnd_below(64));
			else if (r < 85)
				model_arm(x, x->expires);
			else if (r < 90)
				model_del(x);
			else
				run(model_base - 1 + 1 + rnd_below(r < 97 ? 50 : 5000));
			check_model();
		}
		assert_true(fired_total > 0);
	}
}


/* The cases of a re-arm within a bucket, one by one: the cached earliest
 * timer moving later (unknown until the next query), another timer moving
 * before it, a move that changes nothing, and an already-due timer. */
static void test_rearm_within_bucket(void **state)
{
	(void)state;
	uint32_t next;
	start_at(0);
	model_arm(&T[0], 1000);         /* level 1, block 3: jiffies 768 .. 1023 */
	model_arm(&T[1], 1010);
	model_arm(&T[2], 1020);
	check_model();                  /* 1000, and T[0] cached as earliest */
	model_arm(&T[0], 1015);         /* the earliest moves later */
	check_model();                  /* 1010 */
	model_arm(&T[2], 800);          /* another moves before the earliest */
	check_model();                  /* 800 */
	model_arm(&T[1], 1005);         /* neither earliest before nor after */
	check_model();
	model_arm(&T[2], 800);          /* the same expiry again */
	check_model();
	assert_int_equal(timer_count(), 3);
	run(1023);
	assert_int_equal(T[2].fired_at, 800);
	assert_int_equal(T[1].fired_at, 1005);
	assert_int_equal(T[0].fired_at, 1015);
	assert_false(timer_next_expiry(&next));

	/* Already due: in the base's level-0 bucket, and still there when
	 * re-armed to another past jiffy or to the base itself. */
	start_at(1000);
	run(1000);                      /* base 1001 */
	model_arm(&T[0], 990);
	model_arm(&T[1], 1001);
	check_model();                  /* 990 */
	model_arm(&T[0], 995);
	check_model();                  /* 995: re-armed later, still earliest */
	model_arm(&T[0], 1001);
	check_model();                  /* 1001 */
	model_arm(&T[1], 980);
	check_model();                  /* 980 */
	run(1001);
	assert_int_equal(T[0].fired_at, 1001);
	assert_int_equal(T[1].fired_at, 1001);
}

/* ------------------------------------------------------------ exactness */

static void test_exact_jiffy_every_level(void **state)
{
	(void)state;
	static const uint32_t deltas[] = {
		0, 1, 2, 255, 256, 257, 300, 16383, 16384, 16385, 100000,
		(1u << 20) - 1, 1u << 20, (1u << 20) + 1, (1u << 26) - 1, 1u << 26,
		(1u << 26) + 1, 1u << 30, 0x7FFFFFFFu,
	};
	rng_state = 5;
	for (unsigned variant = 0; variant < 6; variant++) {
		for (unsigned lead = 0; lead < 3; lead++) {
			for (size_t i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++) {
				start_at(start_for(variant));
				/* Arm from an unaligned base too. */
				if (lead)
					run(model_base - 1 + (lead == 1 ? 77 : 256));
				uint32_t e = model_base + deltas[i];
				model_arm(&T[0], e);
				check_model();
				if (deltas[i] > 300) {
					run(e - 300);       /* skip most of the way */
					assert_int_equal(T[0].fired, 0);
				}
				/* Then jiffy by jiffy up to it. */
				while (sdiff(e, model_base) > 0) {
					run(model_base);
					assert_int_equal(T[0].fired, 0);
				}
				run(model_base);
				assert_int_equal(T[0].fired, 1);
				assert_int_equal(T[0].fired_at, e);
			}
		}
	}
}

/* The header comment's case: at a level-1 block start the current bucket
 * is not cascaded yet and holds the soonest timers; one jiffy on it holds
 * timers a whole turn (64 * 256 jiffies) away and is searched last. */
static void test_current_bucket_both_ways(void **state)
{
	(void)state;
	start_at(0);
	model_arm(&T[0], 266);          /* level 1, block 1 */
	run(255);                       /* base 256: block 1 starts, not cascaded */
	check_model();
	uint32_t next;
	assert_true(timer_next_expiry(&next));
	assert_int_equal(next, 266);
	run(266);
	assert_int_equal(T[0].fired_at, 266);

	start_at(0);
	run(455);                       /* base 456, inside block 1 */
	model_arm(&T[1], 16700);        /* block 65: level 1's current bucket */
	check_model();
	model_arm(&T[2], 10000);        /* block 39 */
	check_model();                  /* 10000 comes first */
	run(10000);
	assert_int_equal(T[2].fired_at, 10000);
	check_model();                  /* now 16700 */
	run(16699);
	assert_int_equal(T[1].fired, 0);
	run(16700);
	assert_int_equal(T[1].fired_at, 16700);
}

/* Many timers spread over millions of jiffies, all fired by one run. */
static void test_one_long_run_fires_all_in_order(void **state)
{
	(void)state;
	rng_state = 77;
	start_at(0xFFFFFFFFu - 200);
	for (unsigned i = 0; i < NT; i++)
		model_arm(&T[i], model_base + rnd_below(1u << 24));
	run(model_base + (1u << 24));
	assert_int_equal(fired_total, NT);
}

/* ------------------------------------------------------------ callbacks */

static void rearm_periodic(struct tt *x)
{
	model_arm(x, x->fired_at + x->period);
}

static void test_periodic_self_rearm(void **state)
{
	(void)state;
	start_at(0xFFFFFFFFu - 300);
	T[0].then = rearm_periodic;
	T[0].period = 10;
	model_arm(&T[0], model_base + 10);
	for (int i = 0; i < 1000; i++)
		run(model_base);            /* jiffy by jiffy: base+0 .. base+999 */
	assert_int_equal(T[0].fired, 99);
	run(model_base - 1 + 100000);   /* one long run: base+1000 .. base+100999 */
	assert_int_equal(T[0].fired, 99 + 10000);
	assert_true(T[0].armed);
}

static void delete_self(struct tt *x)
{
	assert_int_equal(timer_del(&x->t), 0);      /* already off the wheel */
	model_arm(x, model_base + 5);
	model_del(x);                               /* armed, then deleted */
}

static void test_callback_deletes_itself(void **state)
{
	(void)state;
	start_at(0);
	T[0].then = delete_self;
	model_arm(&T[0], 10);
	run(100);
	assert_int_equal(T[0].fired, 1);
	assert_false(timer_pending(&T[0].t));
}

/* T[0..2] share a jiffy; whichever runs first deletes the other two (they
 * wait on the running list) and T[3], due later in the same run. */
static void delete_group(struct tt *x)
{
	for (unsigned i = 0; i < 4; i++)
		if (&T[i] != x) {
			assert_int_equal(timer_del(&T[i].t), 1);
			T[i].armed = false;
		}
	check_model();
}

static void test_callback_deletes_others_due_same_run(void **state)
{
	(void)state;
	start_at(0xFFFFFFFFu - 2);
	for (unsigned i = 0; i < 3; i++) {
		T[i].then = delete_group;
		model_arm(&T[i], 0);
	}
	model_arm(&T[3], 3);
	run(10);
	assert_int_equal(T[0].fired + T[1].fired + T[2].fired, 1);
	assert_int_equal(T[3].fired, 0);
	assert_int_equal(timer_count(), 0);
}

/* Arming a timer whose expiry is already behind: it fires with the next
 * jiffy the wheel processes. */
static void arm_expired(struct tt *x)
{
	model_arm(&T[1], x->fired_at - 5);
	assert_int_equal(T[1].due, x->fired_at + 1);
}

static void test_expired_timer_armed_in_callback(void **state)
{
	(void)state;
	/* The run goes on past the jiffy: it fires in the same run, next jiffy. */
	start_at(1000);
	T[0].then = arm_expired;
	model_arm(&T[0], 1005);
	run(1010);
	assert_int_equal(T[1].fired, 1);
	assert_int_equal(T[1].fired_at, 1006);

	/* The run ends on that jiffy: it waits for the next run. */
	start_at(1000);
	T[0].then = arm_expired;
	model_arm(&T[0], 1005);
	run(1005);
	assert_int_equal(T[1].fired, 0);
	assert_true(timer_pending(&T[1].t));
	uint32_t next;
	assert_true(timer_next_expiry(&next));
	assert_int_equal(next, 1000);               /* its expiry, 1005 - 5 */
	run(1006);
	assert_int_equal(T[1].fired_at, 1006);
}

static void rearm_now(struct tt *x)
{
	model_arm(x, run_now);
}

/* Re-arming for `now` from the callback cannot loop: once per run. */
static void test_rearm_for_now_fires_once_per_run(void **state)
{
	(void)state;
	start_at(0xFFFFFFFFu - 1);
	T[0].then = rearm_now;
	model_arm(&T[0], model_base);
	for (unsigned i = 1; i <= 5; i++) {
		run(model_base);
		assert_int_equal(T[0].fired, i);
	}
}

static void test_expired_timer_armed_between_runs(void **state)
{
	(void)state;
	start_at(0);
	run(500);                           /* base 501 */
	model_arm(&T[0], 400);
	check_model();                      /* next expiry: 400 */
	run(500);                           /* a stale run does nothing */
	assert_int_equal(T[0].fired, 0);
	run(501);
	assert_int_equal(T[0].fired_at, 501);
}

/* A nested run (the tick interrupting a callback) is taken over by the
 * outer one, which goes on to the later `now`. */
static void nested_tick(struct tt *x)
{
	timer_run_expired(x->fired_at + 50);
	assert_int_equal(T[1].fired, 0);    /* nothing ran inside the nested call */
}

static void test_nested_run_from_callback(void **state)
{
	(void)state;
	start_at(100);
	T[0].then = nested_tick;
	model_arm(&T[0], 110);
	model_arm(&T[1], 140);
	model_arm(&T[2], 161);
	running = true;
	run_now = 160;              /* what the outer run will reach */
	timer_run_expired(110);
	running = false;
	model_base = 161;
	assert_int_equal(T[1].fired_at, 140);
	assert_int_equal(T[2].fired, 0);
	check_model();
}

/* ------------------------------------------------------------ remap */

static uint32_t remap_old_base, remap_new_base;

/* 250 Hz -> 1000 Hz: four new jiffies per old one, from the bases. */
static uint32_t map_x4(uint32_t expires, void *ctx)
{
	(void)ctx;
	return remap_new_base + (uint32_t)(sdiff(expires, remap_old_base) * 4);
}

/* 1000 Hz -> 100 Hz: a tenth, rounded up so nothing fires early. */
static uint32_t map_div10(uint32_t expires, void *ctx)
{
	int32_t d = sdiff(expires, remap_old_base);
	assert_ptr_equal(ctx, &remap_old_base);
	return remap_new_base + (uint32_t)(d >= 0 ? (d + 9) / 10 : d / 10);
}

static void remap_and_check(uint32_t (*map)(uint32_t, void *), void *ctx)
{
	remap_old_base = model_base;
	remap_new_base = rnd32();
	timer_wheel_remap(remap_new_base, map, ctx);
	model_base = remap_new_base;
	for (unsigned i = 0; i < NT; i++)
		if (T[i].armed) {
			T[i].expires = map(T[i].expires, ctx);
			T[i].due = sdiff(T[i].expires, model_base) < 0 ? model_base : T[i].expires;
		}
	check_model();
	/* Run through everything, in steps, checking each lands exactly. */
	uint32_t due;
	while (model_min_due(&due))
		run(rnd_below(2) ? due : model_base - 1 + 1 + rnd_below(5000));
	assert_int_equal(timer_count(), 0);
}

static void test_remap(void **state)
{
	(void)state;
	rng_state = 31;
	for (unsigned variant = 0; variant < 3; variant++) {
		start_at(start_for(variant));
		run(model_base - 1 + 1000);
		for (unsigned i = 0; i < NT; i++)
			model_arm(&T[i], i < 8 ? model_base - 1 - i : model_base + rnd_below(2000000));
		remap_and_check(map_x4, NULL);
		unsigned fired = fired_total;
		for (unsigned i = 0; i < NT; i++)
			model_arm(&T[i], model_base + rnd_below(2000000));
		remap_and_check(map_div10, &remap_old_base);
		assert_int_equal(fired_total, fired + NT);
	}
}

static unsigned remaps_refused;

static void remap_inside(struct tt *x)
{
	(void)x;
	expect_panic(timer_wheel_remap(0, map_x4, NULL),
	             "timer_wheel_remap: called from a timer callback");
	remaps_refused++;
}

static void test_remap_from_callback_panics(void **state)
{
	(void)state;
	start_at(0);
	T[0].then = remap_inside;
	model_arm(&T[0], 1);
	remaps_refused = 0;
	run(1);
	/* The check above ran only if the callback did. */
	assert_int_equal(T[0].fired, 1);
	assert_int_equal(remaps_refused, 1);
}

/* ------------------------------------------------------------ misuse */

/* Distances from the base that put a timer in each level (two in level 0). */
static const uint32_t misuse_deltas[] = { 3, 200, 1000, 20000, 2000000, 1u << 28 };

/* After a refused call the wheel must be as it was: the model agrees, and
 * x (pending) fires once, on its jiffy. */
static void check_fires_once_on_time(struct tt *x)
{
	check_model();
	uint32_t due = x->due;
	unsigned fired = x->fired;
	if (sdiff(due, model_base) > 0)
		run(due - 1);
	assert_int_equal(x->fired, fired);
	run(due);
	assert_int_equal(x->fired, fired + 1);
	assert_int_equal(x->fired_at, due);
	run(due + 1000);
	assert_int_equal(x->fired, fired + 1);
}

/* timer_init on a pending timer panics naming it, wherever it sits (each
 * level, the base's bucket when already due, sharing its bucket with a
 * neighbour that was armed after it and one before), and leaves it
 * pending.  `delta` from the base; 0: already due. */
static void init_pending_case(uint32_t delta)
{
	start_at(0xFFFFFFFFu - 100);
	run(model_base);                        /* base not on a block start */
	uint32_t e = delta ? model_base + delta : model_base - 7;
	model_arm(&T[1], e);
	model_arm(&T[0], e);
	model_arm(&T[2], e);
	model_arm(&T[3], e + 1);
	expect_panic(timer_init(&T[0].t, cb, names[0]), "timer_init: t0 is pending");
	assert_true(timer_pending(&T[0].t));
	check_fires_once_on_time(&T[0]);
	assert_int_equal(T[1].fired + T[2].fired + T[3].fired, 3);
	/* Disarmed, or fired, it may be set up again. */
	timer_init(&T[0].t, cb, names[0]);
	model_arm(&T[0], model_base + 10);
	model_del(&T[0]);
	timer_init(&T[0].t, cb, names[0]);
	check_model();
}

static void test_init_pending_panics(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(misuse_deltas); i++)
		init_pending_case(misuse_deltas[i]);
	init_pending_case(0);
}

/* A timer waiting on the running list (due on the jiffy being run, its
 * callback not yet called) is pending too. */
static bool init_partner_tried;

static void init_partner(struct tt *x)
{
	if (init_partner_tried)
		return;
	init_partner_tried = true;
	struct tt *other = x == &T[0] ? &T[1] : &T[0];
	char want[32];
	snprintf(want, sizeof(want), "timer_init: %s is pending", names[other - T]);
	expect_panic(timer_init(&other->t, cb, names[other - T]), want);
	assert_true(timer_pending(&other->t));
}

static void test_init_waiting_to_run_panics(void **state)
{
	(void)state;
	start_at(500);
	init_partner_tried = false;
	T[0].then = init_partner;
	T[1].then = init_partner;
	model_arm(&T[0], 600);
	model_arm(&T[1], 600);
	run(700);
	assert_true(init_partner_tried);
	assert_int_equal(T[0].fired, 1);
	assert_int_equal(T[1].fired, 1);
	assert_int_equal(T[0].fired_at, 600);
	assert_int_equal(T[1].fired_at, 600);
}

/* Whatever a timer's memory holds, timer_init only compares it: here its
 * pointers are wild and its bucket names a list that holds other timers
 * (even its pprev points into the wheel, at that list's head). */
static void test_init_never_trusts_garbage(void **state)
{
	(void)state;
	start_at(0);
	for (size_t i = 0; i < ARRAY_SIZE(misuse_deltas); i++) {
		model_arm(&T[2 * i], misuse_deltas[i]);
		model_arm(&T[2 * i + 1], misuse_deltas[i]);
	}
	run(1);
	static struct timer garbage;
	memset(&garbage, 0xA5, sizeof(garbage));        /* bucket out of range */
	timer_init(&garbage, cb, "garbage");
	for (size_t i = 0; i < ARRAY_SIZE(misuse_deltas); i++) {
		memset(&garbage, 0xA5, sizeof(garbage));
		garbage.bucket = T[2 * i].t.bucket;
		garbage.pprev = T[2 * i + 1].t.pprev;   /* the bucket's head: T[2i+1] came last */
		timer_init(&garbage, cb, "garbage");
		assert_false(timer_pending(&garbage));
		check_model();
	}
	memset(&garbage, 0xA5, sizeof(garbage));
	garbage.bucket = 0xFFFF;                        /* the running list's mark */
	timer_init(&garbage, cb, "garbage");
	check_model();
	assert_int_equal(timer_count(), 2 * ARRAY_SIZE(misuse_deltas));
	run(1u << 29);
	assert_int_equal(fired_total, 2 * ARRAY_SIZE(misuse_deltas));
}

/* timer_add arms a timer that is not pending; a second add panics naming
 * it, and the first arming stands. */
static void add_twice_case(uint32_t delta)
{
	start_at(1000);
	model_add(&T[0], model_base + delta);
	model_add(&T[1], model_base + delta);
	check_model();
	expect_panic(timer_add(&T[0].t, model_base + 1), "timer_add: t0 is already pending");
	expect_panic(timer_add(&T[0].t, T[0].expires), "timer_add: t0 is already pending");
	check_fires_once_on_time(&T[0]);
	assert_int_equal(T[1].fired, 1);
	/* Once fired, or deleted, it may be added again. */
	model_add(&T[0], model_base + 5);
	model_del(&T[0]);
	model_add(&T[0], model_base + 5);
	check_fires_once_on_time(&T[0]);
}

static void test_add_twice_panics(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(misuse_deltas); i++)
		add_twice_case(misuse_deltas[i]);
}

/* A callback may timer_add its own timer (it is off the wheel while it
 * runs), but not twice. */
static void add_self_twice(struct tt *x)
{
	model_add(x, x->fired_at + 10);
	expect_panic(timer_add(&x->t, x->fired_at + 20), "timer_add: t0 is already pending");
}

static void test_add_from_callback(void **state)
{
	(void)state;
	start_at(0);
	T[0].then = add_self_twice;
	model_add(&T[0], 10);
	run(10);
	assert_int_equal(T[0].fired, 1);
	assert_true(timer_pending(&T[0].t));
	run(29);
	assert_int_equal(T[0].fired, 2);
	assert_int_equal(T[0].fired_at, 20);
}

/* Re-initialising a timer from its own callback panics naming it; other
 * timers may be set up there, and it may be once its callback is done. */
static void reinit_self(struct tt *x)
{
	expect_panic(timer_init(&x->t, cb, names[0]), "timer_init: t0 is running");
	assert_false(timer_pending(&x->t));
	timer_init(&T[5].t, cb, names[5]);
	model_arm(x, x->fired_at + 3);
}

static void test_init_from_own_callback_panics(void **state)
{
	(void)state;
	start_at(0xFFFFFFFFu - 1);
	T[0].then = reinit_self;
	model_arm(&T[0], 0);
	model_arm(&T[1], 0);                    /* runs in the same jiffy */
	model_arm(&T[2], 2);
	run(2);
	assert_int_equal(T[0].fired, 1);
	assert_int_equal(T[1].fired_at, 0);
	assert_int_equal(T[2].fired_at, 2);
	T[0].then = NULL;
	check_fires_once_on_time(&T[0]);        /* the re-arm in the callback stood */
	timer_init(&T[0].t, cb, names[0]);      /* not running any more */
}

/* ------------------------------------------------------------ the rest */

/* Skipping 2^31 - 1 jiffies with far timers pending is a handful of
 * cascades, not billions of empty jiffies. */
static void test_long_skip_is_fast(void **state)
{
	(void)state;
	start_at(0xFFFFFFFFu - 100);
	uint32_t b0 = model_base;
	model_arm(&T[0], b0 + (1u << 30));
	model_arm(&T[1], b0 + 0x7FFFFFFFu);
	model_arm(&T[2], b0 + 12345678);
	clock_t t0 = clock();
	run(b0 + (1u << 30) - 1);
	assert_int_equal(T[2].fired_at, b0 + 12345678);
	assert_int_equal(T[0].fired, 0);
	run(b0 + (1u << 30));
	assert_int_equal(T[0].fired_at, b0 + (1u << 30));
	run(b0 + 0x7FFFFFFEu);
	assert_int_equal(T[1].fired, 0);
	run(b0 + 0x7FFFFFFFu);
	assert_int_equal(T[1].fired_at, b0 + 0x7FFFFFFFu);
	/* An empty wheel skips as fast. */
	run(model_base + 0x7FFFFFF0u);
	double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(seconds < 0.5);
}

static void count_visit(struct timer *t, void *ctx)
{
	assert_true(host_irqs_disabled);
	assert_true(timer_pending(t));
	(*(unsigned *)ctx)++;
}

static void test_count_and_for_each(void **state)
{
	(void)state;
	start_at(0);
	assert_int_equal(timer_count(), 0);
	uint32_t next;
	assert_false(timer_next_expiry(&next));
	for (unsigned i = 0; i < 40; i++)
		model_arm(&T[i], 1 + i * 997);
	unsigned visited = 0;
	timer_for_each_on(arch_this_cpu_id(), count_visit, &visited);
	assert_int_equal(visited, 40);
	assert_int_equal(timer_count(), 40);
	model_del(&T[3]);
	visited = 0;
	timer_for_each_on(arch_this_cpu_id(), count_visit, &visited);
	assert_int_equal(visited, 39);
	assert_int_equal(timer_count(), 39);
}

/* A static timer never armed is all zeros: disarming it is a quiet no-op
 * (the shell's `every off` before any `every`; it faulted on a NULL base). */
static void test_del_of_a_never_armed_static_timer(void **state)
{
	(void)state;
	static struct timer never;
	assert_int_equal(timer_del(&never), 0);
	assert_false(timer_pending(&never));
}

/* ------------------------------------------------------------ the two wheels */

#define MANY 10000
static struct timer many[MANY];
static uint32_t many_soft[MANY], many_fired_at[MANY];
static unsigned many_fired[MANY];

static void many_cb(struct timer *t)
{
	unsigned i = (unsigned)(t - many);
	many_fired[i]++;
	many_fired_at[i] = timer_wheel_base() - 1;
}

/* Arm all MANY timers, each at lo + rnd_below(span) (kept in many_soft). */
static void arm_many(uint32_t lo, uint32_t span)
{
	for (unsigned i = 0; i < MANY; i++) {
		timer_init(&many[i], many_cb, "many");
		many_soft[i] = lo + rnd_below(span);
		timer_mod(&many[i], many_soft[i]);
	}
}

static void del_many(void)
{
	for (unsigned i = 0; i < MANY; i++)
		timer_del(&many[i]);
}

/* 10^4 timers 2^14 .. 2^20 jiffies ahead; the worst work (timers moved
 * or taken to run, struct timer_base's `work`) of one tick over the next
 * 2^15 jiffies.  Deterministic: work is counted, not timed. */
static uint32_t worst_tick_work(enum timer_wheel_kind k)
{
	rng_state = 77;
	fresh_wheel(0);
	timer_wheel_switch(k);
	jiffies_64 = 0;
	arm_many(1u << 14, (1u << 20) - (1u << 14));
	struct timer_base *w = time_timer_base(0);
	uint32_t worst = 0;
	for (uint32_t j = 0; j < (1u << 15); j++) {
		uint32_t before = w->work;
		jiffies_64 = j;
		timer_run_expired(j);
		if (w->work - before > worst)
			worst = w->work - before;
	}
	del_many();
	return worst;
}

/* The cascading wheel moves a whole level-2 bucket (~160 timers, none of
 * them due) at jiffy 2^14; the level wheel touches a timer only when its
 * bucket runs, a handful a tick. */
static void test_worst_tick_cascade_spikes_level_flat(void **state)
{
	(void)state;
	uint32_t cascade = worst_tick_work(TIMER_WHEEL_CASCADE);
	uint32_t level = worst_tick_work(TIMER_WHEEL_LEVEL);
	print_message("worst tick with %u timers: cascade %u, level %u timers touched\n",
	              MANY, cascade, level);
	assert_true(cascade >= 100);
	assert_true(level * 8 < cascade);
}

/* Switching wheels at runtime, twice, with 10^4 windows pending: every
 * timer stays pending and fires once, never before its soft end, and no
 * later than its hard end widened by the level wheel's granularity. */
static void test_switch_keeps_every_timer(void **state)
{
	(void)state;
	rng_state = 78;
	fresh_wheel(0xFFFFFFFFu - 5000);
	jiffies_64 = 0xFFFFFFFFu - 5001;
	uint32_t now = 0xFFFFFFFFu - 5001;
	for (unsigned i = 0; i < MANY; i++) {
		timer_init(&many[i], many_cb, "many");
		many_fired[i] = 0;
		many_soft[i] = now + 1 + rnd_below(i % 2 ? 300 : 200000);
		timer_mod_range(&many[i], many_soft[i], many_soft[i] + rnd_below(50));
	}
	enum timer_wheel_kind order[] = { TIMER_WHEEL_LEVEL, TIMER_WHEEL_CASCADE, TIMER_WHEEL_LEVEL };
	for (unsigned step = 0; step < 3; step++) {
		unsigned pending = timer_count();
		timer_wheel_switch(order[step]);
		assert_int_equal(timer_wheel_current(), order[step]);
		assert_int_equal(timer_count(), pending);
		for (unsigned k = 0; k < 3000; k++) {
			now++;
			jiffies_64 = now;
			timer_run_expired(now);
		}
	}
	for (unsigned k = 0; k < 300000 && timer_count(); k++) {
		now++;
		jiffies_64 = now;
		timer_run_expired(now);
	}
	assert_int_equal(timer_count(), 0);
	for (unsigned i = 0; i < MANY; i++) {
		assert_int_equal(many_fired[i], 1);
		assert_true(time_after_eq(many_fired_at[i], many_soft[i]));
		/* 200000 ahead is level 5 at most: 2^15 granularity. */
		assert_true(many_fired_at[i] - many_soft[i] < 50 + (1u << 15));
	}
}

/* Cancelling leaves no trace: after every timer is armed across all levels
 * and then deleted, no occupancy bit is left set (a stale bit would send
 * the run and the next-expiry query to an empty bucket) and the wheel
 * reports nothing pending. */
static void test_cancel_leaves_no_trace(void **state)
{
	(void)state;
	rng_state = 79;
	start_at(0xFFFFFFFFu - 1000);
	for (unsigned round = 0; round < 20; round++) {
		for (unsigned i = 0; i < NT; i++)
			model_arm(&T[i], random_expiry());
		/* Half of them re-armed once, so buckets empty out in every order. */
		for (unsigned i = 0; i < NT; i += 2)
			model_arm(&T[i], random_expiry());
		for (unsigned i = 0; i < NT; i++)
			model_del(&T[(i * 37 + round) % NT]);
		check_model();
		assert_int_equal(timer_count(), 0);
		uint32_t next;
		assert_false(timer_next_expiry(&next));
		struct timer_base *w = time_timer_base(0);
		for (unsigned k = 0; k < ARRAY_SIZE(w->occupied); k++)
			if (w->occupied[k]) {
				print_error("occupancy word %u is %#x with every timer cancelled\n", k,
				            w->occupied[k]);
				fail();
			}
		run(model_base - 1 + 1 + rnd_below(5000));
	}
}

/* The next-expiry query's cost does not grow with the number of pending
 * timers: with 10^4 timers spread over every level, each query looks at
 * (compares the hard end of) at most the timers of the buckets whose
 * cached earliest changed since the last query, here a few, never all.
 * Counted, not timed (struct timer_base's `looked`).  Each answer is also
 * checked against a plain search of all the timers. */
static void test_next_expiry_cost_is_flat(void **state)
{
	(void)state;
	rng_state = 80;
	fresh_wheel(1000);
	timer_wheel_switch(TIMER_WHEEL_CASCADE);
	jiffies_64 = 999;
	arm_many(1000 + 1, 1u << 24);
	struct timer_base *w = time_timer_base(0);
	uint32_t next;
	assert_true(timer_next_expiry(&next));          /* fills the caches */
	uint32_t worst = 0, total = 0;
	for (unsigned q = 0; q < 500; q++) {
		/* Move one timer, or cancel the earliest: either can spoil one
		 * bucket's cached earliest. */
		unsigned i = rnd_below(MANY);
		if (q % 2) {
			bool found = false;
			for (unsigned k = 0; k < MANY; k++)
				if (timer_pending(&many[k]) && (!found || many_soft[k] - 1000 < many_soft[i] - 1000))
					i = k, found = true;
			timer_del(&many[i]);
		} else {
			many_soft[i] = 1000 + 1 + rnd_below(1u << 24);
			timer_mod(&many[i], many_soft[i]);
		}
		uint32_t before = w->looked;
		assert_true(timer_next_expiry(&next));
		uint32_t cost = w->looked - before;
		total += cost;
		if (cost > worst)
			worst = cost;
		uint32_t want = 0;
		bool any = false;
		for (unsigned k = 0; k < MANY; k++)
			if (timer_pending(&many[k]) && (!any || many_soft[k] - 1000 < want - 1000))
				want = many_soft[k], any = true;
		assert_true(any);
		assert_int_equal(next, want);
	}
	print_message("next expiry with %u timers pending: worst %u, mean %u timers looked at\n",
	              MANY, worst, total / 500);
	/* A level-1 bucket holds ~2^8/2^24 of them, a level-2 bucket ~2^14/2^24,
	 * a level-3 bucket ~2^20/2^24 (625): one such walk at most. */
	if (worst > MANY / 8 || total / 500 > MANY / 50)
		fail_msg("next expiry with %u timers pending looked at %u at worst, %u on average; want at most "
		         "%u and %u: wheel_earliest walks a bucket only when its cached earliest (bucket_min) is "
		         "NULL, keeps what it finds, and stops a level at the first bucket past the best",
		         MANY, worst, total / 500, MANY / 8, MANY / 50);
	del_many();

	/* All of them in one crowded bucket (level 2's for jiffies 3 * 2^14
	 * .. 4 * 2^14 - 1), the earliest at its end.  Moving the others inside
	 * the bucket keeps its cached earliest, so a query looks at almost
	 * nothing; walking the bucket each time would be 10^4 a query. */
	fresh_wheel(0);
	timer_wheel_switch(TIMER_WHEEL_CASCADE);
	jiffies_64 = 0;
	uint32_t lo = 3u << 14, span = 1u << 14;
	arm_many(lo, span - 1);
	assert_true(timer_next_expiry(&next));
	total = 0;
	for (unsigned q = 0; q < 500; q++) {
		unsigned i = rnd_below(MANY);
		many_soft[i] = lo + rnd_below(span - 1);
		timer_mod(&many[i], many_soft[i]);
		uint32_t before = w->looked;
		assert_true(timer_next_expiry(&next));
		total += w->looked - before;
		uint32_t want = many_soft[0];
		for (unsigned k = 1; k < MANY; k++)
			if (many_soft[k] < want)
				want = many_soft[k];
		assert_int_equal(next, want);
	}
	print_message("next expiry, %u timers in one bucket: %u timers looked at in 500 queries\n",
	              MANY, total);
	if (total > 4 * MANY)
		fail_msg("next expiry, %u timers in one bucket: %u timers looked at in 500 queries, want at most "
		         "%u: wheel_earliest walks a bucket only when its cached earliest (bucket_min) is NULL, "
		         "and keeps what it finds there", MANY, total, 4 * MANY);
	del_many();
}

static unsigned switches_refused;

static void switch_inside(struct tt *x)
{
	(void)x;
	expect_panic(timer_wheel_switch(TIMER_WHEEL_LEVEL), "timer_wheel_switch: called from a timer callback");
	switches_refused++;
}

static void test_switch_from_callback_panics(void **state)
{
	(void)state;
	start_at(0);
	T[0].then = switch_inside;
	model_arm(&T[0], 1);
	switches_refused = 0;
	run(1);
	assert_int_equal(T[0].fired, 1);
	assert_int_equal(switches_refused, 1);
}

/* The regression Linux 4.8 met: a CPU idle for 100,000 jiffies has its
 * wheel's base that far behind.  A timer armed then for 10 jiffies from
 * now, measured from the stale base, would land in level 4 (4096-jiffy
 * buckets) and fire up to 4095 jiffies late.  Forwarded, it is exact. */
static void test_level_forwards_a_stale_base(void **state)
{
	(void)state;
	start_at(1000);
	jiffies_64 = 1000 + 100000;             /* idle: no run since */
	model_base = 1000 + 100000;             /* (what the forwarding does) */
	model_arm(&T[0], 1000 + 100000 + 10);
	/* Not run(): its model checks would stop at the stale timer first. */
	running = true;
	run_now = 1000 + 100000 + 10;
	timer_run_expired(run_now);
	running = false;
	assert_int_equal(T[0].fired, 1);
	assert_int_equal(T[0].fired_at, 1000 + 100000 + 10);
}

/* ... but never past a bucket still to run: a timer due at 1050, not yet
 * run because nothing ran since 1000, keeps the base at 1050. */
static void test_level_forward_stops_at_the_next_bucket(void **state)
{
	(void)state;
	start_at(1000);
	model_arm(&T[0], 1050);
	jiffies_64 = 1000 + 100000;
	timer_mod(&T[1].t, 1000 + 100000 + 10);
	assert_int_equal(timer_wheel_base(), 1050);
	timer_del(&T[1].t);
	run(1000 + 100000);
	assert_int_equal(T[0].fired, 1);
	assert_int_equal(T[0].fired_at, 1050);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_del_of_a_never_armed_static_timer),
		cmocka_unit_test(test_random_against_model),
		cmocka_unit_test_setup_teardown(test_random_against_model, on_level_wheel, on_cascade_wheel),
		cmocka_unit_test(test_random_nudges_against_model),
		cmocka_unit_test_setup_teardown(test_random_nudges_against_model, on_level_wheel, on_cascade_wheel),
		cmocka_unit_test(test_rearm_within_bucket),
		cmocka_unit_test(test_exact_jiffy_every_level),
		cmocka_unit_test(test_current_bucket_both_ways),
		cmocka_unit_test(test_one_long_run_fires_all_in_order),
		cmocka_unit_test(test_periodic_self_rearm),
		cmocka_unit_test(test_callback_deletes_itself),
		cmocka_unit_test(test_callback_deletes_others_due_same_run),
		cmocka_unit_test(test_expired_timer_armed_in_callback),
		cmocka_unit_test(test_rearm_for_now_fires_once_per_run),
		cmocka_unit_test(test_expired_timer_armed_between_runs),
		cmocka_unit_test(test_nested_run_from_callback),
		cmocka_unit_test(test_remap),
		cmocka_unit_test(test_remap_from_callback_panics),
		cmocka_unit_test(test_init_pending_panics),
		cmocka_unit_test(test_init_waiting_to_run_panics),
		cmocka_unit_test(test_init_never_trusts_garbage),
		cmocka_unit_test(test_add_twice_panics),
		cmocka_unit_test(test_add_from_callback),
		cmocka_unit_test(test_init_from_own_callback_panics),
		cmocka_unit_test(test_long_skip_is_fast),
		cmocka_unit_test(test_count_and_for_each),
		cmocka_unit_test(test_worst_tick_cascade_spikes_level_flat),
		cmocka_unit_test(test_cancel_leaves_no_trace),
		cmocka_unit_test(test_next_expiry_cost_is_flat),
		cmocka_unit_test(test_switch_keeps_every_timer),
		cmocka_unit_test(test_switch_from_callback_panics),
		cmocka_unit_test_setup_teardown(test_level_forwards_a_stale_base, on_level_wheel, on_cascade_wheel),
		cmocka_unit_test_setup_teardown(test_level_forward_stops_at_the_next_bucket, on_level_wheel, on_cascade_wheel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
