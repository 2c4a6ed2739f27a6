; boot/entry.asm — the first instructions lull runs.
;
; Spec: Multiboot Specification 0.6.96, section 3.1 (header) and 3.2 (machine
; state).  GRUB and QEMU's -kernel both load the ELF at 1 MiB, put the magic
; 0x2BADB002 in EAX and the physical address of the multiboot info block in
; EBX, and jump here in 32-bit protected mode with paging and interrupts off.
; We have no stack yet and the GDT the loader used may be gone, so: set up a
; stack, clear the direction flag, and hand EAX/EBX to kmain(), which checks
; the magic and loads our own GDT first thing.
;
; A Multiboot2 header follows the first (Multiboot2 Specification 2.0,
; 3.1): GRUB's `multiboot2` command, which also works on UEFI firmware,
; finds it and enters with 0x36D76289 in EAX and its tag list's address in
; EBX instead (3.3); kmain tells the two apart.  QEMU's -kernel speaks only
; Multiboot 1.  GRUB passes the memory map, the command line and the ACPI
; RSDP copies unasked; the header asks for one thing more, a framebuffer
; (3.1.10), optional and of any size: under UEFI there is no VGA text mode,
; and without the request GRUB hands over no framebuffer for lull's console
; to draw on (drivers/platform/framebuffer.c).  On a BIOS, boot/grub.cfg
; sets gfxpayload=text, so GRUB keeps VGA text mode and describes it as an
; EGA-text framebuffer, which lull draws on as VGA text.

MB_MAGIC        equ 0x1BADB002          ; header magic (spec 3.1.2)
MB_FLAG_ALIGN   equ 1 << 0              ; page-align loaded modules
MB_FLAG_MEMINFO equ 1 << 1              ; give us mem_* and the memory map
MB_FLAGS        equ MB_FLAG_ALIGN | MB_FLAG_MEMINFO
MB_CHECKSUM     equ -(MB_MAGIC + MB_FLAGS)   ; magic + flags + checksum == 0

KERNEL_STACK_SIZE equ 16384

MB2_MAGIC       equ 0xE85250D6          ; header magic (Multiboot2 3.1.1)
MB2_ARCH_I386   equ 0                   ; 32-bit protected mode i386
MB2_TAG_END     equ 0                   ; type 0, flags 0, size 8 ends the tags
MB2_TAG_FRAMEBUFFER equ 5               ; framebuffer request (3.1.10)
MB2_TAG_OPTIONAL    equ 1               ; flags bit 0: boot anyway without it

section .multiboot align=8
align 4
    dd MB_MAGIC
    dd MB_FLAGS
    dd MB_CHECKSUM
align 8                                 ; 3.1.1: 64-bit aligned, in the first 32 KiB
mb2_header:
    dd MB2_MAGIC
    dd MB2_ARCH_I386
    dd mb2_header_end - mb2_header
    dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
    dw MB2_TAG_FRAMEBUFFER, MB2_TAG_OPTIONAL
    dd 20                               ; size: the header and three fields
    dd 0, 0, 0                          ; width, height, depth: no preference
    align 8, db 0                       ; 3.1.3: tags are 8-byte aligned
    dw MB2_TAG_END, 0                   ; type, flags
    dd 8                                ; size
mb2_header_end:

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
