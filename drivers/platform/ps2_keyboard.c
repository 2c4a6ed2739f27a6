/* drivers/platform/ps2_keyboard.c — PS/2 keyboard on the 8042 controller, IRQ1.
 *
 * Spec: IBM PC/AT Technical Reference, keyboard controller (ports 60h/64h);
 * scan code set 1 as delivered after the 8042's default translation.  Each
 * key becomes the byte(s) a serial terminal would send — letters, Enter as
 * CR, Backspace as DEL, Ctrl+letter as its control code, arrows as ESC [ A
 * and so on — so the shell needs no keyboard-specific code.  US layout.
 */
#include "drivers/platform.h"
#include "console.h"
#include "arch/irq.h"
#include "arch/x86.h"
#include "errno.h"

#define KBD_DATA        0x60
#define KBD_STATUS      0x64
#define KBD_STATUS_OBF  0x01    /* output buffer full: a byte to read */
#define KBD_IRQ         PS2_KEYBOARD_IRQ

#define SC_RELEASE      0x80    /* set 1: high bit marks a key release */
#define SC_EXTENDED     0xE0    /* prefix of the grey keys */
#define SC_LSHIFT       0x2A
#define SC_RSHIFT       0x36
#define SC_CTRL         0x1D    /* left, or right after 0xE0 */
#define SC_CAPSLOCK     0x3A
#define SC_EXT_UP       0x48
#define SC_EXT_DOWN     0x50
#define SC_EXT_LEFT     0x4B
#define SC_EXT_RIGHT    0x4D
#define SC_EXT_KP_ENTER 0x1C
#define KBD_FLUSH_LIMIT 32

/* Scan code set 1 -> ASCII, unshifted and shifted.  0 = no character. */
static const char keymap[2][0x3A] = {
	{ 0, 0x1b, '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=', 0x7f,
	  '\t', 'q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', '[', ']', '\r',
	  0, 'a', 's', 'd', 'f', 'g', 'h', 'j', 'k', 'l', ';', '\'', '`',
	  0, '\\', 'z', 'x', 'c', 'v', 'b', 'n', 'm', ',', '.', '/', 0, '*', 0, ' ' },
	{ 0, 0x1b, '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+', 0x7f,
	  '\t', 'Q', 'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{', '}', '\r',
	  0, 'A', 'S', 'D', 'F', 'G', 'H', 'J', 'K', 'L', ':', '"', '~',
	  0, '|', 'Z', 'X', 'C', 'V', 'B', 'N', 'M', '<', '>', '?', 0, '*', 0, ' ' },
};

static bool shift, ctrl, capslock, extended;

static void push_escape(char final)
{
	console_input_push(0x1b);
	console_input_push('[');
	console_input_push(final);
}

static void handle_scancode(uint8_t sc)
{
	if (sc == SC_EXTENDED) {
		extended = true;
		return;
	}
	bool release = sc & SC_RELEASE;
	uint8_t code = sc & ~SC_RELEASE;
	bool ext = extended;
	extended = false;

	if (code == SC_LSHIFT || code == SC_RSHIFT) {
		if (!ext)
			shift = !release;
		return;
	}
	if (code == SC_CTRL) {
		ctrl = !release;
		return;
	}
	if (release)
		return;
	if (code == SC_CAPSLOCK) {
		capslock = !capslock;
		return;
	}
	if (ext) {
		switch (code) {
		case SC_EXT_UP:       push_escape('A'); break;
		case SC_EXT_DOWN:     push_escape('B'); break;
		case SC_EXT_RIGHT:    push_escape('C'); break;
		case SC_EXT_LEFT:     push_escape('D'); break;
		case SC_EXT_KP_ENTER: console_input_push('\r'); break;
		}
		return;
	}
	if (code >= sizeof(keymap[0]))
		return;
	char c = keymap[shift][code];
	if (!c)
		return;
	if (capslock && c >= 'a' && c <= 'z')
		c -= 'a' - 'A';
	else if (capslock && c >= 'A' && c <= 'Z')
		c += 'a' - 'A';
	if (ctrl && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
		c = CTRL(c);
	console_input_push(c);
}

static void keyboard_irq(void *ctx)
{
	UNUSED(ctx);
	if (inb(KBD_STATUS) & KBD_STATUS_OBF)
		handle_scancode(inb(KBD_DATA));
}

int ps2_keyboard_init(void)
{
	/* Drop keys pressed before we were ready. */
	for (unsigned i = 0; i < KBD_FLUSH_LIMIT && (inb(KBD_STATUS) & KBD_STATUS_OBF); i++)
		(void)inb(KBD_DATA);
	return irq_request(KBD_IRQ, keyboard_irq, NULL, "keyboard");
}
