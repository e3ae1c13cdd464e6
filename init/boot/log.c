// SPDX-License-Identifier: GPL-2.0-only
/* Logging to /dev/kmsg and the console, usable from the first instruction. */
#define _GNU_SOURCE /* dup3 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * The one piece of process-wide state: where log lines go. Everything else is
 * passed explicitly in struct strata_ctx.
 */
static struct {
	int kmsg_fd;
	int console_fd;
	bool to_stderr;
	bool kmsg_only; /* a daemon's lines stay out of the console's way */
	bool debug;
	int console_loglevel; /* kmsg lines below this level already reach the console */
	unsigned kmsg_lines;
} log_target = {-1, -1, false, false, false, 0, 0};

static int read_console_loglevel(void)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/printk", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return buf[0] >= '0' && buf[0] <= '9' ? buf[0] - '0' : 0;
}

void log_open(void)
{
	log_target.to_stderr = false; /* the button daemon logs like the init */
	if (log_target.kmsg_fd < 0)
		log_target.kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (log_target.console_fd < 0)
		log_target.console_fd =
		    open("/dev/console", O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	log_target.console_loglevel = read_console_loglevel();
}

void log_kmsg_only(void)
{
	log_target.kmsg_only = true;
}

void log_use_stderr(void)
{
	log_target.to_stderr = true;
}

void log_set_debug(bool on)
{
	log_target.debug = on;
}

bool log_debug_enabled(void)
{
	return log_target.debug;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static void vslog(int prio, const char *fmt, va_list ap)
{
	/* kmsg takes at most 1024 bytes a record; longer lines are cut, not lost silently */
	char line[1024];
	int saved_errno = errno;
	int hdr = snprintf(line, sizeof(line), "<%d>strata: ", prio);
	int n = vsnprintf(line + hdr, sizeof(line) - (size_t)hdr - 1, fmt, ap);
	size_t len = (size_t)hdr + (n < 0 ? 0 : (size_t)n);
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	line[len] = '\0';
	errno = saved_errno;

	/* the priority prefix "<N>" is 3 bytes for N < 10 */
	if (log_target.to_stderr) {
		write_all(STDERR_FILENO, line + 3, len - 3);
		return;
	}
	if (log_target.kmsg_fd >= 0) {
		/*
		 * The kernel lets one open /dev/kmsg write 10 lines per 5 s and
		 * drops the rest (printk.devkmsg=ratelimit, the default); the
		 * boot's log must not lose a line, so every 8th goes through a
		 * fresh open of it, under the same descriptor.
		 */
		if (++log_target.kmsg_lines % 8 == 0) {
			int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
			if (fd >= 0) {
				dup3(fd, log_target.kmsg_fd, O_CLOEXEC);
				close(fd);
			}
		}
		write_all(log_target.kmsg_fd, line, len);
	}
	if (log_target.console_fd >= 0 &&
	    (log_target.kmsg_fd < 0 ||
	     (prio >= log_target.console_loglevel && !log_target.kmsg_only)))
		write_all(log_target.console_fd, line + 3, len - 3);
}

void slog(int prio, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vslog(prio, fmt, ap);
	va_end(ap);
}

int slog_errno(int prio, int err, const char *fmt, ...)
{
	va_list ap;
	errno = err < 0 ? -err : err;
	va_start(ap, fmt);
	vslog(prio, fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

void console_print(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	int fd = log_target.to_stderr ? STDERR_FILENO : log_target.console_fd;
	if (fd >= 0)
		write_all(fd, buf, len);
}
