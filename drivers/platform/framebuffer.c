/* drivers/platform/framebuffer.c — a text console drawn in pixels on the
 * linear framebuffer the boot loader set up.
 *
 * Under UEFI there is no VGA text mode: the firmware's Graphics Output
 * Protocol (UEFI 2.9, 12.9) leaves a linear framebuffer, and GRUB hands
 * its address, pitch, size and pixel layout on in the Multiboot2
 * framebuffer tag (Multiboot2 2.0, 3.6.12), which lull asks for in its
 * header (boot/entry.asm).  This file turns that into a console sink with
 * the same behaviour as the VGA text screen (drivers/platform/vga_text.c):
 * the same bytes shown, the same control characters obeyed, scrolling,
 * and a cursor.
 *
 * Characters are drawn from the built-in 8x13 font (include/font.h).  A
 * copy of the text on screen is kept, so scrolling redraws only the cells
 * whose character changes and never reads the framebuffer (reads from
 * video memory are slow on real hardware; writes are what it is made
 * for).  Direct-colour pixels of 16, 24 or 32 bits are drawn; a palette
 * (indexed) framebuffer is not, and lull says so and falls back.
 */
#include "drivers/platform.h"
#include "console.h"
#include "errno.h"
#include "font.h"
#include "kprintf.h"
#include "multiboot.h"
#include "arch/paging.h"

/* The text kept for redrawing: enough for 2048x1664 pixels; a bigger
 * screen shows its top-left 256x128 characters. */
#define FB_MAX_COLS     256
#define FB_MAX_ROWS     128
#define FB_TAB          8
#define FB_GREY         0xAA    /* of 0xFF: VGA's light grey, attribute 07h */
#define FB_CURSOR_ROWS  2       /* the cursor: the cell's bottom rows lit */

static struct {
	uint8_t *base;
	uint32_t pitch, bytes_per_pixel;
	uint32_t fg, bg;                /* pixel values */
	unsigned cols, rows;
	unsigned row, col;              /* the cursor */
} fb;
static char text[FB_MAX_ROWS][FB_MAX_COLS];

/* A colour channel of 0..255 placed where the pixel format keeps it. */
static uint32_t channel(unsigned value, uint8_t pos, uint8_t size)
{
	return (uint32_t)(value >> (8 - size)) << pos;
}

static void put_pixel(uint8_t *p, uint32_t v)
{
	switch (fb.bytes_per_pixel) {
	case 4: *(volatile uint32_t *)p = v; break;
	case 3: p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); break;
	default: *(volatile uint16_t *)p = (uint16_t)v; break;
	}
}

/* Draw the character kept at (row, col); with the cursor's bar if `cursor`. */
static void draw_cell(unsigned row, unsigned col, bool cursor)
{
	unsigned char c = (unsigned char)text[row][col];
	const uint8_t *glyph = font_8x13[(c >= FONT_FIRST && c <= FONT_LAST ? c : ' ') - FONT_FIRST];
	uint8_t *line = fb.base + row * FONT_HEIGHT * fb.pitch + col * FONT_WIDTH * fb.bytes_per_pixel;
	for (unsigned y = 0; y < FONT_HEIGHT; y++, line += fb.pitch) {
		uint8_t bits = cursor && y >= FONT_HEIGHT - FB_CURSOR_ROWS ? 0xFF : glyph[y];
		for (unsigned x = 0; x < FONT_WIDTH; x++)
			put_pixel(line + x * fb.bytes_per_pixel, bits & (0x80 >> x) ? fb.fg : fb.bg);
	}
}

static void scroll(void)
{
	for (unsigned r = 0; r + 1 < fb.rows; r++)
		for (unsigned c = 0; c < fb.cols; c++)
			if (text[r][c] != text[r + 1][c]) {
				text[r][c] = text[r + 1][c];
				draw_cell(r, c, false);
			}
	for (unsigned c = 0; c < fb.cols; c++)
		if (text[fb.rows - 1][c] != ' ') {
			text[fb.rows - 1][c] = ' ';
			draw_cell(fb.rows - 1, c, false);
		}
	fb.row = fb.rows - 1;
}

/* What vga_text.c's vga_putc does, in pixels. */
static void fb_putc(char c)
{
	draw_cell(fb.row, fb.col, false);       /* the cursor leaves this cell */
	switch (c) {
	case '\n':
		fb.col = 0;
		fb.row++;
		break;
	case '\r':
		fb.col = 0;
		break;
	case '\b':
		if (fb.col)
			fb.col--;
		break;
	case '\t':
		fb.col = (fb.col + FB_TAB) & ~(FB_TAB - 1);
		break;
	default:
		if ((unsigned char)c < 0x20)
			break;                  /* other control bytes: not shown */
		text[fb.row][fb.col] = c;
		draw_cell(fb.row, fb.col, false);
		fb.col++;
	}
	if (fb.col >= fb.cols) {
		fb.col = 0;
		fb.row++;
	}
	if (fb.row >= fb.rows)
		scroll();
	draw_cell(fb.row, fb.col, true);
}

static struct console_sink fb_sink = { .name = "framebuffer", .putc = fb_putc };

/* Why this framebuffer cannot be drawn on, or NULL if it can. */
static const char *unusable(const struct boot_framebuffer *f)
{
	if (f->type != BOOT_FB_RGB)
		return "a palette (indexed) framebuffer is not drawn";
	if (f->bpp != 16 && f->bpp != 24 && f->bpp != 32)
		return "pixels of this size are not drawn";
	if (f->red_size > 8 || f->green_size > 8 || f->blue_size > 8 ||
	    f->red_pos + f->red_size > f->bpp || f->green_pos + f->green_size > f->bpp ||
	    f->blue_pos + f->blue_size > f->bpp)
		return "colour fields outside the pixel";
	if (f->width < FONT_WIDTH || f->height < FONT_HEIGHT ||
	    f->pitch < (uint64_t)f->width * (f->bpp / 8))
		return "smaller than one character, or rows shorter than the width";
	if (f->addr + (uint64_t)f->pitch * f->height > (1ull << 32))
		return "above 4 GiB, out of a 32-bit kernel's reach";
	return NULL;
}

int framebuffer_init(const struct boot_info *bi)
{
	const struct boot_framebuffer *f = &bi->fb;
	if (!(bi->flags & BOOT_INFO_FRAMEBUFFER)) {
		kprintf("framebuffer: none from the boot loader; the VGA text screen\n");
		return -ENODEV;
	}
	if (f->type == BOOT_FB_EGA_TEXT) {
		kprintf("framebuffer: VGA text mode, %ux%u characters: the VGA text screen\n",
		        f->width, f->height);
		return -ENODEV;
	}
	const char *why = unusable(f);
	if (why) {
		kprintf("framebuffer: %ux%u, %u bpp, type %u: %s; the VGA text screen\n",
		        f->width, f->height, f->bpp, f->type, why);
		return -ENODEV;
	}
	fb.base = paging_map_mmio((uint32_t)f->addr, f->pitch * f->height);
	if (!fb.base) {
		kprintf("framebuffer: no page tables left to map it; the VGA text screen\n");
		return -ENODEV;
	}
	fb.pitch = f->pitch;
	fb.bytes_per_pixel = f->bpp / 8;
	fb.fg = channel(FB_GREY, f->red_pos, f->red_size) | channel(FB_GREY, f->green_pos, f->green_size) |
	        channel(FB_GREY, f->blue_pos, f->blue_size);
	fb.bg = 0;
	fb.cols = MIN(f->width / FONT_WIDTH, FB_MAX_COLS);
	fb.rows = MIN(f->height / FONT_HEIGHT, FB_MAX_ROWS);
	for (uint32_t y = 0; y < f->height; y++)
		for (uint32_t x = 0; x < f->width; x++)
			put_pixel(fb.base + y * fb.pitch + x * fb.bytes_per_pixel, fb.bg);
	for (unsigned r = 0; r < fb.rows; r++)
		for (unsigned c = 0; c < fb.cols; c++)
			text[r][c] = ' ';
	fb.row = fb.col = 0;
	kprintf("framebuffer: %ux%u, %u bpp at 0x%08x: a %ux%u text console in the 8x13 font\n",
	        f->width, f->height, f->bpp, (uint32_t)f->addr, fb.cols, fb.rows);
	console_add_sink(&fb_sink);
	return 0;
}
