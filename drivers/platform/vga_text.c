/* drivers/platform/vga_text.c — the 80x25 colour text screen at 0xB8000.
 *
 * Spec: IBM VGA Technical Reference, "Alphanumeric modes" (each cell is a
 * character byte and an attribute byte) and the CRT controller's cursor
 * location registers 0Eh/0Fh.  The BIOS leaves the screen in mode 3; we only
 * write cells, scroll by copying rows up, and move the hardware cursor.
 * Everything the console prints appears here too (vga_init adds the screen
 * as a console sink), so the ISO is usable in a VM window or on a real PC
 * without a serial cable.
 */
#include "drivers/platform.h"
#include "console.h"
#include "kstring.h"
#include "arch/x86.h"

#define VGA_TEXT_BASE   0xB8000
#define VGA_COLS        80
#define VGA_ROWS        25
#define VGA_ATTR        0x07    /* light grey on black */
#define VGA_TAB         8

#define CRTC_INDEX      0x3D4   /* colour-mode CRT controller */
#define CRTC_DATA       0x3D5
#define CRTC_CURSOR_HI  0x0E
#define CRTC_CURSOR_LO  0x0F

static volatile uint16_t *const screen = (volatile uint16_t *)VGA_TEXT_BASE;
static unsigned row, col;

static uint16_t cell(char c) { return (uint16_t)(VGA_ATTR << 8) | (uint8_t)c; }

static void move_cursor(void)
{
	unsigned pos = row * VGA_COLS + col;
	outb(CRTC_INDEX, CRTC_CURSOR_HI);
	outb(CRTC_DATA, (uint8_t)(pos >> 8));
	outb(CRTC_INDEX, CRTC_CURSOR_LO);
	outb(CRTC_DATA, (uint8_t)pos);
}

/* Rows 1-24 up to 0-23 as 960 doublewords in one string move, the last
 * row blanked in one string store: a loop of 1920 cell copies made every
 * line printed on a full screen cost thousands of instructions, and the
 * boot prints more lines than the screen holds. */
static void scroll(void)
{
	uint32_t n = (VGA_ROWS - 1) * VGA_COLS * sizeof(uint16_t) / sizeof(uint32_t);
	volatile void *to = screen;
	const volatile void *from = screen + VGA_COLS;
	__asm__ __volatile__("rep movsl" : "+D"(to), "+S"(from), "+c"(n) :: "memory");
	uint32_t blank = (uint32_t)cell(' ') << 16 | cell(' ');
	n = VGA_COLS * sizeof(uint16_t) / sizeof(uint32_t);
	__asm__ __volatile__("rep stosl" : "+D"(to), "+c"(n) : "a"(blank) : "memory");
	row = VGA_ROWS - 1;
}

static void vga_putc(char c)
{
	switch (c) {
	case '\n':
		col = 0;
		row++;
		break;
	case '\r':
		col = 0;
		break;
	case '\b':
		if (col)
			col--;
		break;
	case '\t':
		col = (col + VGA_TAB) & ~(VGA_TAB - 1);
		break;
	default:
		if ((unsigned char)c < 0x20)
			return;                 /* other control bytes: not shown */
		screen[row * VGA_COLS + col] = cell(c);
		col++;
	}
	if (col >= VGA_COLS) {
		col = 0;
		row++;
	}
	if (row >= VGA_ROWS)
		scroll();
	move_cursor();
}

static struct console_sink vga_sink = { .name = "vga", .putc = vga_putc };

void vga_init(void)
{
	for (unsigned i = 0; i < VGA_ROWS * VGA_COLS; i++)
		screen[i] = cell(' ');
	row = col = 0;
	move_cursor();
	console_add_sink(&vga_sink);
}
