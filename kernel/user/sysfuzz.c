/* kernel/user/sysfuzz.c — `spawn sysfuzz [CALLS] [SEED]`: the system call
 * table called with random numbers and arguments from ring 3, to show
 * that bad arguments come back as errors and never crash the kernel
 * (docs/tasks.md, "System calls").
 *
 * Each call's number is drawn from the table and past its end (never
 * SYS_EXIT, which would end the fuzz), each argument from values that
 * break checks (0, -1, the sign bit, the kernel's own pages, the guard
 * page under this task's stack, a wrapping address) or from anywhere.
 * Three limits keep the run finite and its output readable, and say what
 * is not fuzzed: a pointer the kernel may write through points at a
 * scratch buffer if it is a user address (but for one that runs past the
 * end of the programs' pages), so the fuzz cannot scribble over its own
 * code; a write of user memory is 0 bytes, too long to be written, or
 * runs past that end, so no garbage reaches the console; a sleep is
 * negative (an error) or under a millisecond.  Every answer must be one the call
 * may give; the summary counts each, and any other is printed.
 */
#include "ulib.h"
#include "errno.h"

#define CALLS_DEFAULT   2000
#define CALLS_MAX       100000
#define NR_PAST_END     4               /* numbers past the table, for ENOSYS */
#define SLEEP_MAX_NS    1000000         /* 1 ms */
#define WRITE_TOO_LONG  4097            /* kernel/syscall.c's WRITE_MAX, and one */

extern char __kernel_start[];           /* linker.ld: kernel memory */
extern char __user_start[], __user_end[];

static uint32_t rng;

static uint32_t next(void)
{
	rng ^= rng << 13;               /* Marsaglia's xorshift32 */
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static uint64_t scratch[8];             /* where SYS_CLOCK and SYS_TIMES may write */

/* One argument: a value that breaks a check, or anything. */
static uint32_t arg(void)
{
	volatile uint32_t on_stack;
	uint32_t kinds[] = {
		0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0xfffffffcu,
		(uint32_t)__kernel_start, (uint32_t)__kernel_start + 0x1000,
		((uint32_t)&on_stack & ~0xfffu) - 0x4000,       /* below its stack: the guard page */
		(uint32_t)__user_start, (uint32_t)__user_end - 4,        /* 4 bytes before the end of ours */
		(uint32_t)&on_stack, next(),
	};
	return kinds[next() % (sizeof(kinds) / sizeof(kinds[0]))];
}

/* Whether the kernel would let this task touch p: the programs' pages, or
 * anywhere near its stack (a generous 64 KiB around it: its 16 KiB are in
 * there somewhere). */
static int is_user(uint32_t p)
{
	volatile uint32_t here;
	uint32_t sp = (uint32_t)&here;
	return p - (uint32_t)__user_start < (uint32_t)(__user_end - __user_start) || p - (sp - 0x8000) < 0x10000;
}

/* Whether rc is the answer call nr must give for these arguments (a, b:
 * the first two; user: what a points at lies wholly where the task may
 * touch). */
static int expected(uint32_t nr, int32_t rc, uint32_t a, uint32_t b, int user)
{
	int64_t ns = (int64_t)((uint64_t)b << 32 | a);
	switch (nr) {
	case SYS_WRITE:
		if (b > WRITE_TOO_LONG - 1)
			return rc == -EINVAL;
		if (b == 0)             /* nothing to write: whether an address is checked is the kernel's choice */
			return rc == 0 || rc == -EFAULT;
		return user ? rc == (int32_t)b : rc == -EFAULT;
	case SYS_YIELD:       return rc == 0;
	case SYS_GETCPU:      return rc >= 0 && rc < 64;
	case SYS_CLOCK:
	case SYS_TIMES:       return user ? rc == 0 : rc == -EFAULT;
	case SYS_SLEEP:
	case SYS_SLEEP_UNTIL: return ns < 0 ? rc == -EINVAL : rc == 0;
	case SYS_TICK_HZ:     return rc == 100 || rc == 250 || rc == 1000;
	default:              return nr >= SYS_COUNT && rc == -ENOSYS;
	}
}

static void say_unexpected(uint32_t nr, uint32_t a, uint32_t b, int32_t rc)
{
	u_puts("sysfuzz: call ");
	u_put_u64(nr);
	u_puts(" (");
	u_put_u64(a);
	u_puts(", ");
	u_put_u64(b);
	u_puts(") returned ");
	if (rc < 0)
		u_puts("-");
	u_put_u64((uint64_t)(rc < 0 ? -(int64_t)rc : rc));
	u_puts(", not the answer it must give\n");
}

/* The limits the file's header names, on one call's first two arguments. */
static void shape(uint32_t nr, uint32_t *a, uint32_t *b)
{
	if ((nr == SYS_CLOCK || nr == SYS_TIMES) && is_user(*a) && *a != (uint32_t)__user_end - 4)
		*a = (uint32_t)scratch;
	if (nr == SYS_WRITE && is_user(*a))
		*b = next() & 1 ? 0 : WRITE_TOO_LONG;
	/* A write 4 bytes before the end of our pages runs past it. */
	if (nr == SYS_WRITE && *a == (uint32_t)__user_end - 4 && next() & 1)
		*b = 8;
	if (nr == SYS_SLEEP || nr == SYS_SLEEP_UNTIL) {
		uint64_t ns = next() & 1 ? 0x8000000000000000ull | next() : next() % SLEEP_MAX_NS;
		if (nr == SYS_SLEEP_UNTIL && ns < SLEEP_MAX_NS)
			ns += sys_clock();      /* at most 1 ms from now, or already past */
		*a = (uint32_t)ns;
		*b = (uint32_t)(ns >> 32);
	}
}

int sysfuzz_main(const char *args);
int sysfuzz_main(const char *args)
{
	int ok1 = 1, ok2 = 1;
	const char *rest = args;
	uint64_t calls = CALLS_DEFAULT, seed = 1;
	if (args[0])
		calls = u_parse_u64(args, &rest, &ok1);
	if (ok1 && rest[0])
		seed = u_parse_u64(rest, &rest, &ok2);
	if (!ok1 || !ok2 || rest[0] || calls < 1 || calls > CALLS_MAX || seed == 0 || seed > 0xffffffffu) {
		u_puts("usage: spawn sysfuzz [CALLS(1..100000)] [SEED(1..4294967295)]\n");
		return 2;
	}
	rng = (uint32_t)seed;
	uint32_t ok = 0, efault = 0, einval = 0, enosys = 0, unexpected = 0;
	for (uint64_t i = 0; i < calls; i++) {
		uint32_t nr = next() % (SYS_COUNT + NR_PAST_END);
		if (nr == SYS_EXIT)
			nr = SYS_YIELD;
		uint32_t a = arg(), b = arg(), c = arg(), d = arg(), e = arg();
		shape(nr, &a, &b);
		uint32_t size = nr == SYS_CLOCK ? 8 : nr == SYS_TIMES ? sizeof(struct task_times) : b;
		int user = is_user(a) && (size == 0 || is_user(a + size - 1));
		int32_t rc = syscall5(nr, a, b, c, d, e);
		if (!expected(nr, rc, a, b, user)) {
			if (unexpected++ < 5)
				say_unexpected(nr, a, b, rc);
		} else if (rc >= 0) {
			ok++;
		} else if (rc == -EFAULT) {
			efault++;
		} else if (rc == -EINVAL) {
			einval++;
		} else {
			enosys++;
		}
	}
	u_puts("sysfuzz: ");
	u_put_u64(calls);
	u_puts(" calls (seed ");
	u_put_u64(seed);
	u_puts("): ");
	u_put_u64(ok);
	u_puts(" answered, EFAULT ");
	u_put_u64(efault);
	u_puts(", EINVAL ");
	u_put_u64(einval);
	u_puts(", ENOSYS ");
	u_put_u64(enosys);
	u_puts("; ");
	u_put_u64(unexpected);
	u_puts(" unexpected\n");
	return unexpected ? 1 : 0;
}
