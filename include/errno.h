/* include/errno.h — lull's one error vocabulary, shared by every layer so a
 * caller never has to learn a second one.  Functions return 0 on success or
 * one of these, negated; a broken invariant panics instead.  A message
 * names the code, never prints its number: errno_name() and errno_text()
 * (kernel/lib/errno.c) turn -ENOSYS into "ENOSYS" and "not implemented". */
#ifndef LULL_ERRNO_H
#define LULL_ERRNO_H

#define EINTR    4      /* interrupted (Ctrl-C) */
#define EIO      5      /* a check of what happened failed */
#define EAGAIN  11      /* try again */
#define EBUSY   16      /* in use */
#define ENODEV  19      /* device absent */
#define EINVAL  22      /* bad argument, or hardware misbehaving */
#define ERANGE  34      /* value out of range */
#define ENOSPC  28      /* fixed-size table full */
#define EPERM    1      /* not allowed (the shell or an idle task) */
#define ENOENT   2      /* no such name */
#define ESRCH    3      /* no such task */
#define E2BIG    7      /* argument list too long */
#define EFAULT  14      /* a bad address from a task */
#define ETIME   62      /* deadline already passed */
#define ETIMEDOUT 110   /* no answer in time */
#define ENOSYS  38      /* not written yet (a lab's stub, include/lab.h) */

/* The name of an error code, either sign ("ENOSYS" for -38 and 38), and
 * what it means in a few words ("not implemented").  A number that is none
 * of the codes above is "EUNKNOWN": every layer returns these alone. */
const char *errno_name(int err);
const char *errno_text(int err);

#endif
