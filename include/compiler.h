/* include/compiler.h — small helpers every file may use.  Portable: the
 * host unit tests include it too. */
#ifndef LULL_COMPILER_H
#define LULL_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define ARRAY_SIZE(a)   (sizeof(a) / sizeof((a)[0]))
#define UNUSED(x)       ((void)(x))
#define likely(x)       __builtin_expect(!!(x), 1)
#define unlikely(x)     __builtin_expect(!!(x), 0)
#define __packed        __attribute__((packed))
#define __noreturn      __attribute__((noreturn))
#define __printf(a, b)  __attribute__((format(printf, a, b)))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define MIN(a, b)       ((a) < (b) ? (a) : (b))
#define MAX(a, b)       ((a) > (b) ? (a) : (b))

/* Compiler barrier: memory the compiler must not cache across this point
 * (variables an interrupt handler changes). */
#define barrier()       __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x)    (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#define NSEC_PER_USEC   1000ULL
#define NSEC_PER_MSEC   1000000ULL
#define NSEC_PER_SEC    1000000000ULL
#define USEC_PER_SEC    1000000ULL
#define MSEC_PER_SEC    1000ULL
#define PARTS_PER_MILLION 1000000ULL

/* How far `measured` is from `reference`, in parts per million of the
 * reference (negative if below), truncated toward zero: the one way lull
 * states a rate error.  Both must be below 2^63 and differ by less than
 * 2^63 / 10^6 (9.2e12 Hz or ns), or the product overflows. */
static inline int64_t ppm_diff(uint64_t measured, uint64_t reference)
{
	return ((int64_t)measured - (int64_t)reference) * (int64_t)PARTS_PER_MILLION /
	       (int64_t)reference;
}

#endif
