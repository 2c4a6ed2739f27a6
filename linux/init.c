/* linux/init.c — the whole user space of the series' test guest.
 *
 * tools/linux-boot boots $BUILD/linux/bzImage in qemu-system-i386 with this
 * program, built static, as /init in a tiny initramfs.  It runs commands,
 * first those given on the kernel command line after "--" (one argument
 * each, ',' for a space), then those typed on the serial console:
 *
 *   cat PATH              print a file (dyn_tick_state, /proc/interrupts)
 *   write PATH VALUE      write VALUE to a file; prints the error if it fails
 *   sleep MS              sleep MS milliseconds
 *   spin N MS             N busy processes for MS milliseconds, in the background
 *   toggle N PATH         write 0 and 1 to PATH N times each, ending with 1
 *   wait                  wait for the spin processes
 *   dmesg                 the kernel's log buffer (the dyn-tick: lines)
 *   poweroff              reboot(RB_POWER_OFF): ACPI S5, QEMU exits
 *
 * Every command prints one line ending "ok" or starting "error:", so a
 * test can wait for it.  Kernel messages less urgent than a warning stay
 * off the console once init runs (they would cut into a command's output
 * mid-line; the dyn-tick: lines come when the first CPU switches to nohz
 * mode, which can be after init started): `dmesg` shows them.  Built with the i686 cross compiler against the
 * static i386 libc (Debian: libc6-dev-i386-cross), as bench/linux-init.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_MSEC 1000000LL
/* klogctl(2) actions (include/linux/syslog.h), and the console level that
 * still prints KERN_WARNING (4) and worse: a level is printed when it is
 * below the console's. */
#define SYSLOG_ACTION_READ_ALL      3
#define SYSLOG_ACTION_CONSOLE_LEVEL 8
#define SYSLOG_ACTION_SIZE_BUFFER   10
#define CONSOLE_LOGLEVEL_WARNINGS   5

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / NSEC_PER_MSEC;
}

static int cmd_cat(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("error: cat %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		fwrite(buf, 1, n, stdout);
	close(fd);
	printf("cat ok\n");
	return 0;
}

/* One write(2) of VALUE and a newline, as `echo VALUE > PATH` does. */
static int write_file(const char *path, const char *value)
{
	char line[128];
	int len = snprintf(line, sizeof line, "%s\n", value);
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	int ok = write(fd, line, len) == len;
	int err = errno;
	close(fd);
	return ok ? 0 : -err;
}

static int cmd_write(const char *path, const char *value)
{
	int err = write_file(path, value);
	if (err) {
		printf("error: write %s %s: %s\n", path, value, strerror(-err));
		return -1;
	}
	printf("write ok\n");
	return 0;
}

static void cmd_sleep(long ms)
{
	struct timespec d = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * NSEC_PER_MSEC };
	int err = clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
	if (err)
		printf("error: sleep %ld: %s\n", ms, strerror(err));
	else
		printf("sleep ok\n");
}

static void cmd_spin(long n, long ms)
{
	for (long i = 0; i < n; i++) {
		if (fork() == 0) {
			long long end = now_ms() + ms;
			while (now_ms() < end)
				;
			_exit(0);
		}
	}
	printf("spin ok\n");
}

static void cmd_wait(void)
{
	while (wait(NULL) > 0)
		;
	printf("wait ok\n");
}

static int cmd_dmesg(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	char *buf = size > 0 ? malloc(size) : NULL;
	int n = buf ? klogctl(SYSLOG_ACTION_READ_ALL, buf, size) : -1;
	if (n < 0) {
		printf("error: dmesg: %s\n", strerror(errno));
		free(buf);
		return -1;
	}
	fwrite(buf, 1, n, stdout);
	free(buf);
	printf("dmesg ok\n");
	return 0;
}

static int cmd_toggle(long n, const char *path)
{
	for (long i = 0; i < n; i++) {
		int err = write_file(path, "0");
		if (!err)
			err = write_file(path, "1");
		if (err) {
			printf("error: toggle %s: %s after %ld\n", path, strerror(-err), i);
			return -1;
		}
	}
	printf("toggle ok\n");
	return 0;
}

/* One command line; returns 1 for poweroff. */
static int run(char *line)
{
	char *argv[4] = { 0 };
	int argc = 0;
	for (char *tok = strtok(line, " \t\n"); tok && argc < 4; tok = strtok(NULL, " \t\n"))
		argv[argc++] = tok;
	if (argc == 0)
		return 0;
	const char *cmd = argv[0];
	if (strcmp(cmd, "cat") == 0 && argc == 2)
		cmd_cat(argv[1]);
	else if (strcmp(cmd, "write") == 0 && argc == 3)
		cmd_write(argv[1], argv[2]);
	else if (strcmp(cmd, "sleep") == 0 && argc == 2)
		cmd_sleep(atol(argv[1]));
	else if (strcmp(cmd, "spin") == 0 && argc == 3)
		cmd_spin(atol(argv[1]), atol(argv[2]));
	else if (strcmp(cmd, "toggle") == 0 && argc == 3)
		cmd_toggle(atol(argv[1]), argv[2]);
	else if (strcmp(cmd, "wait") == 0 && argc == 1)
		cmd_wait();
	else if (strcmp(cmd, "dmesg") == 0 && argc == 1)
		cmd_dmesg();
	else if (strcmp(cmd, "poweroff") == 0 && argc == 1)
		return 1;
	else
		printf("usage: cat PATH | write PATH VALUE | sleep MS | spin N MS | "
		       "toggle N PATH | wait | dmesg | poweroff\n");
	return 0;
}

int main(int argc, char **argv)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGCHLD, SIG_DFL);
	klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, CONSOLE_LOGLEVEL_WARNINGS);

	int off = 0;
	for (int i = 1; i < argc && !off; i++) {
		for (char *p = argv[i]; *p; p++)
			if (*p == ',')
				*p = ' ';
		printf("init> %s\n", argv[i]);
		off = run(argv[i]);
	}
	char line[256];
	while (!off) {
		printf("init> ");
		fflush(stdout);
		if (!fgets(line, sizeof line, stdin))
			break;
		off = run(line);
	}
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
