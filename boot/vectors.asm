; boot/vectors.asm — one tiny entry stub per interrupt vector (0..255).
;
; Spec: Intel SDM Vol. 3A, 6.12 (exception and interrupt handling) and
; Table 6-1 (which exceptions push an error code).  Every stub makes the stack
; look the same — an error code (real or a dummy 0) and the vector number —
; then jumps to trap_common, which saves the general registers and calls
; trap_dispatch(struct trapframe *) in kernel/arch/trap.c.  The layout pushed here
; must match struct trapframe in include/arch/trap.h, whose _Static_asserts
; spell out the offsets this file produces.

%macro VECTOR_NOERR 1
vector%1:
    push dword 0                ; dummy error code
    push dword %1               ; vector number
    jmp trap_common
%endmacro

%macro VECTOR_ERR 1
vector%1:                       ; the CPU already pushed an error code
    push dword %1
    jmp trap_common
%endmacro

section .text
; Vectors with a CPU-pushed error code: 8 #DF, 10 #TS, 11 #NP, 12 #SS,
; 13 #GP, 14 #PF, 17 #AC, 21 #CP (SDM Table 6-1).
%assign v 0
%rep 256
  %if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21
    VECTOR_ERR v
  %else
    VECTOR_NOERR v
  %endif
  %assign v v+1
%endrep

TRAPFRAME_CS    equ 60          ; offsetof(struct trapframe, cs), include/arch/trap.h
TSS_TO_PERCPU   equ 64          ; GDT_TSS_TO_PERCPU, include/arch/trap.h

extern trap_dispatch
global trap_return
trap_common:
    pushad                      ; eax ecx edx ebx esp ebp esi edi
    push ds
    push es
    push fs
    push gs
    mov ax, 0x10                ; kernel data segment (kernel/arch/gdt.c)
    mov ds, ax
    mov es, ax
    mov gs, ax                  ; FS is left alone: it is this CPU's own
                                ; segment (this_cpu(), include/arch/smp.h)...
    test byte [esp + TRAPFRAME_CS], 3
    jz .fs_ok
    str ax                      ; ... unless a task (ring 3) was running: it
    sub ax, TSS_TO_PERCPU       ; may have loaded anything, so this CPU's is
    mov fs, ax                  ; found from its TSS, which only we load
.fs_ok:
    cld
    push esp                    ; struct trapframe *
    call trap_dispatch
    add esp, 4
; A task's first run starts here too (kernel/arch/switch.c), on a frame
; built to return to ring 3.
trap_return:
    pop gs
    pop fs
    pop es
    pop ds
    popad
    add esp, 8                  ; vector number and error code
    iretd

; SYSENTER from ring 3 (kernel/arch/sysenter.c): ESP is IA32_SYSENTER_ESP,
; the address of this CPU's TSS.esp0, so the task's kernel stack is one load
; away.  The CPU saved nothing: build the frame `int 0x80` would have (the
; user stub, kernel/user/sysenter.c, left its ESP in EBP and returns at
; u_sysenter_return), IF on again as it was in ring 3, and take the same
; path; the way back is trap_return's IRET.
USER_CS         equ 0x1b        ; USER_CS, USER_DS: include/arch/trap.h
USER_DS         equ 0x23
EFLAGS_IF       equ 0x200
VEC_SYSCALL     equ 0x80
extern u_sysenter_return
global sysenter_entry
sysenter_entry:
    mov esp, [esp]              ; this CPU's TSS.esp0: the task's kernel stack
    push dword USER_DS          ; ss
    push ebp                    ; esp
    pushfd                      ; eflags: ring 3's, but SYSENTER cleared IF
    or dword [esp], EFLAGS_IF
    push dword USER_CS          ; cs
    push dword u_sysenter_return ; eip
    push dword 0                ; error code
    push dword VEC_SYSCALL      ; vector
    jmp trap_common

; The table kernel/arch/idt.c reads to fill the IDT.
section .rodata
global trap_vectors
trap_vectors:
%assign v 0
%rep 256
    dd vector %+ v
  %assign v v+1
%endrep

; `int N` takes its vector as an immediate, so raising a vector chosen at
; run time (irq_raise_soft, kernel/arch/irq.c: `inject spurious-tick`)
; calls the Nth of these 3-byte stubs: int N; ret.
section .text
global soft_int_stubs
soft_int_stubs:
%assign v 0
%rep 256
    db 0xCD, v                  ; int v (NASM would write int 3 as CC)
    ret
  %assign v v+1
%endrep
