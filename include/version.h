#ifndef LULL_VERSION_H
#define LULL_VERSION_H
#define LULL_VERSION "0.1.0"
/* kernel/version.c is rebuilt every time with the git commit it came from. */
extern const char lull_build_info[];
#endif
