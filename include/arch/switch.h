/* include/arch/switch.h — switching from one task's kernel stack to
 * another's, and the first frames of a new task (kernel/arch/switch.c). */
#ifndef LULL_ARCH_SWITCH_H
#define LULL_ARCH_SWITCH_H

#include "compiler.h"

/* Save the callee-saved registers on this stack, store its pointer in
 * *save, load new_esp and return on that stack: to where that task last
 * called arch_switch, or to the start its first frames name.  Interrupts
 * off. */
void arch_switch(uint32_t *save, uint32_t new_esp);

/* A new ring-3 task's kernel stack (top: its highest address): its first
 * switch calls task_first_user() (kernel/task.c), then returns through the
 * interrupt return path to eip in ring 3, on the user stack user_esp,
 * interrupts on, with eax and ebx as given.  Returns the stack pointer to
 * switch to. */
uint32_t arch_first_frame_user(uint8_t *kstack_top, uint32_t eip, uint32_t user_esp,
                               uint32_t eax, uint32_t ebx);
void task_first_user(void);
/* A new kernel task's: its first switch calls entry() (which must not
 * return) with interrupts still off. */
uint32_t arch_first_frame_kernel(uint8_t *kstack_top, void (*entry)(void));

#endif
