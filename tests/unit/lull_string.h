/* tests/unit/lull_string.h — kernel/lib/string.c under other names.
 *
 * lull's string functions carry libc's names, so on the host they would
 * clash with the libc the test (and cmocka, and the sanitizers) uses.
 * lull_string.c compiles the kernel's file with every name renamed to
 * lull_NAME; test_string.c includes this header to declare them from the
 * kernel's own prototypes (include/kstring.h) and compares with libc. */
#ifndef LULL_TEST_STRING_H
#define LULL_TEST_STRING_H

#define memset  lull_memset
#define memcpy  lull_memcpy
#define memmove lull_memmove
#define memcmp  lull_memcmp
#define strlen  lull_strlen
#define strcmp  lull_strcmp
#define strncmp lull_strncmp
#define strchr  lull_strchr
#define strstr  lull_strstr

#include "kstring.h"

#endif
