; boot/trampoline.asm — where an application processor (AP) starts.
;
; Spec: Intel SDM Vol. 3A, 8.4.4 (MP initialization: the INIT-SIPI-SIPI
; sequence) and 9.9 (switching to protected mode).  A start-up IPI with
; vector VV starts the AP in real mode at CS:IP = VV00:0000, that is at
; physical address VV000, with interrupts off and paging off.
;
; kernel/arch/smp.c copies trampoline_start..trampoline_end to a free page
; below 1 MiB and fills in the two fields at its end: the kernel's GDT and
; the 32-bit entry point.  The 16-bit part loads that GDT, sets CR0.PE and
; jumps far into the kernel at ap_entry (flat segments, paging still off);
; ap_entry takes the stack and page directory the boot CPU left for it,
; turns paging on and calls ap_main().  One AP starts at a time, so one set
; of ap_boot_* variables is enough.

CR0_PE          equ 1 << 0
CR0_PG          equ 1 << 31
KERNEL_DS       equ 0x10            ; kernel/arch/gdt.c

section .rodata                     ; copied, never run where it is linked
bits 16
global trampoline_start, trampoline_end, trampoline_gdt_ptr, trampoline_entry
trampoline_start:
    cli
    cld
    mov ax, cs                      ; DS = this page, so offsets below work
    mov ds, ax
    o32 lgdt [trampoline_gdt_ptr - trampoline_start]
    mov eax, cr0
    or eax, CR0_PE
    mov cr0, eax
    ; A far jump through memory: a 32-bit offset and a selector, so the
    ; kernel's address need not fit in 16 bits.
    jmp far dword [trampoline_entry - trampoline_start]

align 4
trampoline_gdt_ptr:                 ; LGDT operand: limit, 32-bit base
    dw 0
    dd 0
align 4
trampoline_entry:                   ; far pointer: offset, then selector
    dd 0
    dw 0
trampoline_end:

section .text
bits 32
global ap_entry
extern ap_boot_stack, ap_boot_cr3, ap_boot_cr4, ap_main
ap_entry:
    mov ax, KERNEL_DS
    mov ds, ax
    mov es, ax
    mov fs, ax
    mov gs, ax
    mov ss, ax
    mov esp, [ap_boot_stack]
    mov eax, [ap_boot_cr4]          ; CR4.PSE before paging, as on the boot
    test eax, eax                   ; CPU (0: no CR4 to write, as on a 486)
    jz .no_cr4
    mov cr4, eax
.no_cr4:
    mov eax, [ap_boot_cr3]
    mov cr3, eax
    mov eax, cr0
    or eax, CR0_PG
    mov cr0, eax
    xor ebp, ebp                    ; end of the frame-pointer chain
    push 0                          ; EFLAGS: IF=0, DF=0
    popfd
    call ap_main
.hang:                              ; ap_main never returns
    cli
    hlt
    jmp .hang
