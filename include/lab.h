/* include/lab.h — what a lab's stub calls (docs/labs/README.md).
 *
 * In a student copy (`make lab`), each region of the reference solution is
 * replaced by a stub that compiles, says once per boot
 *     lab NAME: not implemented
 * and returns something harmless, so the kernel still boots and the lab's
 * tests fail cleanly instead of hanging.  In the solved tree nothing calls
 * this. */
#ifndef LULL_LAB_H
#define LULL_LAB_H

/* Print "lab NAME: not implemented" the first time NAME asks. */
void lab_not_implemented(const char *lab);

#endif
