/* kernel/console.c — the console: every byte printed goes to COM1 and the
 * VGA screen; every byte typed (serial or keyboard) lands in one ring buffer
 * that the shell reads.
 *
 * The ring is filled from interrupt handlers and emptied by the shell, one
 * producer and one consumer on one CPU: the producer only moves `head`, the
 * consumer only moves `tail`, so neither needs to disable interrupts.
 */
#include "console.h"
#include "drivers/platform.h"
#include "kprintf.h"
#include "arch/x86.h"

/* Big enough for several pasted lines of LINEEDIT_MAX characters arriving
 * while a command runs.  A power of two, so indexes wrap with a mask. */
#define CONSOLE_INPUT_SIZE 2048

static char input[CONSOLE_INPUT_SIZE];
static volatile unsigned head, tail;    /* free-running; index = x % size */
static volatile unsigned dropped;
static volatile bool command_running, interrupted;
static bool (*volatile input_hook)(char c);

void console_init(void)
{
	uart_init();
	vga_init();
}

void console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* Terminals want CR LF; the screen treats \n as both. */
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
		vga_putc(s[i]);
	}
}

void console_puts(const char *s)
{
	while (*s)
		console_write(s++, 1);
}

static void console_sink(char c, void *ctx)
{
	UNUSED(ctx);
	console_write(&c, 1);
}

int kvprintf(const char *fmt, va_list ap)
{
	/* One message must not be split by a message from an interrupt. */
	uint32_t flags = irq_save();
	int n = kvformat(console_sink, NULL, fmt, ap);
	irq_restore(flags);
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvprintf(fmt, ap);
	va_end(ap);
	return n;
}

void console_input_push(char c)
{
	if (c == CTRL('C') && command_running) {
		interrupted = true;
		return;
	}
	if (input_hook && input_hook(c))
		return;
	if (head - tail == CONSOLE_INPUT_SIZE) {
		dropped++;
		return;
	}
	input[head % CONSOLE_INPUT_SIZE] = c;
	barrier();
	head++;
}

int console_getc(void)
{
	if (tail == head)
		return -1;
	char c = input[tail % CONSOLE_INPUT_SIZE];
	barrier();
	tail++;
	return (unsigned char)c;
}

bool console_has_input(void) { return tail != head; }
void console_set_input_hook(bool (*hook)(char c)) { input_hook = hook; }
unsigned console_input_dropped(void) { return dropped; }

void console_set_command_running(bool running)
{
	interrupted = false;
	command_running = running;
}

bool console_interrupted(void) { return interrupted; }
