/* tests/unit/lull_string.c — the kernel's kernel/lib/string.c, built for
 * the host with every function renamed lull_NAME (see lull_string.h), so
 * that it links next to libc in test_string.c. */
#include "lull_string.h"
#include "../../kernel/lib/string.c"
