/* include/time/mult_shift.h — converting a count at one rate into a count
 * at another with a multiply and a shift (kernel/time/mult_shift.c). */
#ifndef LULL_TIME_MULT_SHIFT_H
#define LULL_TIME_MULT_SHIFT_H

#include "../compiler.h"

/* Compute mult/shift converting `from` Hz into `to` Hz such that a delta of
 * up to maxsec seconds does not overflow 64 bits, with the largest shift
 * (best precision) that allows it:  out = (in * mult) >> shift. */
void clocks_calc_mult_shift(uint32_t *mult, uint32_t *shift,
                            uint64_t from, uint64_t to, uint64_t maxsec);

#endif
