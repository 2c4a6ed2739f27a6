; boot/entry.asm — the first instructions lull runs.
;
; Spec: Multiboot Specification 0.6.96, section 3.1 (header) and 3.2 (machine
; state).  GRUB and QEMU's -kernel both load the ELF at 1 MiB, put the magic
; 0x2BADB002 in EAX and the physical address of the multiboot info block in
; EBX, and jump here in 32-bit protected mode with paging and interrupts off.
; We have no stack yet and the GDT the loader used may be gone, so: set up a
; stack, clear the direction flag, and hand EAX/EBX to kmain(), which checks
; the magic and loads our own GDT first thing.

MB_MAGIC        equ 0x1BADB002          ; header magic (spec 3.1.2)
MB_FLAG_ALIGN   equ 1 << 0              ; page-align loaded modules
MB_FLAG_MEMINFO equ 1 << 1              ; give us mem_* and the memory map
MB_FLAGS        equ MB_FLAG_ALIGN | MB_FLAG_MEMINFO
MB_CHECKSUM     equ -(MB_MAGIC + MB_FLAGS)   ; magic + flags + checksum == 0

KERNEL_STACK_SIZE equ 16384

section .multiboot
align 4
    dd MB_MAGIC
    dd MB_FLAGS
    dd MB_CHECKSUM

section .bss
align 16
global kernel_stack_bottom, kernel_stack_top
kernel_stack_bottom:
    resb KERNEL_STACK_SIZE
kernel_stack_top:

section .text
global _start
extern kmain
_start:
    mov esp, kernel_stack_top
    xor ebp, ebp                ; end of the frame-pointer chain for stack dumps
    cld
    push 0                      ; reset EFLAGS: IF=0, no stray flags from the loader
    popfd
    push ebx                    ; multiboot info (physical address)
    push eax                    ; multiboot magic
    call kmain
.hang:                          ; kmain never returns; if it does, stop here
    cli
    hlt
    jmp .hang
