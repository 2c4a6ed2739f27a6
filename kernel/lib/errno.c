/* kernel/lib/errno.c — the names of lull's error codes (include/errno.h),
 * so that a message says "ENOSYS (not implemented)", never "-38".  The
 * host unit tests link this file too (Makefile), and
 * tests/unit/test_errno.c checks that every code has its name. */
#include "errno.h"
#include "compiler.h"

static const struct {
	const char *name, *text;
} errnos[] = {
	[EPERM]     = { "EPERM",     "not allowed" },
	[ENOENT]    = { "ENOENT",    "no such name" },
	[ESRCH]     = { "ESRCH",     "no such task" },
	[E2BIG]     = { "E2BIG",     "argument list too long" },
	[EFAULT]    = { "EFAULT",    "bad address" },
	[EINTR]     = { "EINTR",     "interrupted" },
	[EIO]       = { "EIO",       "a check of what happened failed" },
	[EAGAIN]    = { "EAGAIN",    "try again" },
	[EBUSY]     = { "EBUSY",     "in use" },
	[ENODEV]    = { "ENODEV",    "no such device" },
	[EINVAL]    = { "EINVAL",    "invalid argument" },
	[ENOSPC]    = { "ENOSPC",    "no room left" },
	[ERANGE]    = { "ERANGE",    "out of range" },
	[ENOSYS]    = { "ENOSYS",    "not implemented" },
	[ETIME]     = { "ETIME",     "deadline already passed" },
	[ETIMEDOUT] = { "ETIMEDOUT", "no answer in time" },
};

/* 0 for a number that is no code (0 itself is success, not an error). */
static unsigned errno_index(int err)
{
	unsigned i = err < 0 ? -(unsigned)err : (unsigned)err;
	return i < ARRAY_SIZE(errnos) && errnos[i].name ? i : 0;
}

const char *errno_name(int err)
{
	unsigned i = errno_index(err);
	return i ? errnos[i].name : "EUNKNOWN";
}

const char *errno_text(int err)
{
	unsigned i = errno_index(err);
	return i ? errnos[i].text : "not a code of include/errno.h";
}
