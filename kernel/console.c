/* kernel/console.c — the console: every byte printed goes to each sink the
 * drivers added (COM1, the VGA screen); every byte typed (serial or
 * keyboard) lands in one ring buffer that the shell reads.
 *
 * The console calls no driver by name.  Drivers sit a floor above it and
 * hand it what it needs: a sink (a putc) for output, and bytes pushed from
 * their interrupt handlers for input.  Printed bytes are also kept in a
 * log, which a sink added later is shown first (console_add_sink).
 *
 * The ring is filled from interrupt handlers and emptied by the shell, one
 * producer and one consumer on one CPU: the producer only moves `head`, the
 * consumer only moves `tail`, so neither needs to disable interrupts.
 */
#include "console.h"
#include "kprintf.h"
#include "arch/x86.h"
#include "spinlock.h"

/* Big enough for several pasted lines of LINEEDIT_MAX characters arriving
 * while a command runs.  A power of two, so indexes wrap with a mask. */
#define CONSOLE_INPUT_SIZE 2048

static char input[CONSOLE_INPUT_SIZE];
static volatile unsigned head, tail;    /* free-running; index = x % size */
static volatile unsigned dropped;
static volatile bool command_running, interrupted;
static bool (*volatile input_hook)(char c);

/* The sinks in the order they were added, linked through their `next`
 * field: no table to outgrow, so adding one cannot fail. */
static struct console_sink *sinks;
static struct console_sink **sinks_end = &sinks;

/* Every byte printed, the last CONSOLE_LOG_SIZE of them, for a sink added
 * late.  A power of two, so the free-running count wraps with a mask. */
static char log_ring[CONSOLE_LOG_SIZE];
static uint32_t log_count;
static bool log_wrapped;                /* the ring has been round once */

void console_add_sink(struct console_sink *sink)
{
	uint32_t flags = irq_save();
	uint32_t from = 0;
	if (log_wrapped) {
		/* The oldest line was cut by the ring: start after its end. */
		from = log_count - CONSOLE_LOG_SIZE;
		while (from < log_count && log_ring[from++ % CONSOLE_LOG_SIZE] != '\n')
			;
	}
	for (uint32_t i = from; i != log_count; i++)
		sink->putc(log_ring[i % CONSOLE_LOG_SIZE]);
	sink->next = NULL;
	*sinks_end = sink;
	sinks_end = &sink->next;
	irq_restore(flags);
}

void console_write(const char *s, size_t n)
{
	/* Byte by byte across the sinks, so COM1 and the screen stay in step
	 * even when a message is cut short by a panic. */
	for (size_t i = 0; i < n; i++) {
		log_ring[log_count++ % CONSOLE_LOG_SIZE] = s[i];
		log_wrapped |= log_count % CONSOLE_LOG_SIZE == 0;
		for (const struct console_sink *k = sinks; k; k = k->next)
			k->putc(s[i]);
	}
}

static spinlock_t whole_lock = SPINLOCK_INIT;

void console_write_whole(const char *s, size_t n)
{
	unsigned long f = spin_lock_irqsave(&whole_lock);
	console_write(s, n);
	spin_unlock_irqrestore(&whole_lock, f);
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
