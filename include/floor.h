/* include/floor.h — the `floor` boot option (kernel/floor.c). */
#ifndef LULL_FLOOR_H
#define LULL_FLOOR_H

/* If `floor` was given: stop every timer, mask every line, halt forever. */
void floor_if_requested(void);

#endif
