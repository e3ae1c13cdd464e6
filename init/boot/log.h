/* SPDX-License-Identifier: GPL-2.0-only */
/* Logging to /dev/kmsg and the console, usable from the first instruction. */
#ifndef STRATA_LOG_H
#define STRATA_LOG_H

#include <stdbool.h>

/* syslog priorities as the kernel understands them in /dev/kmsg */
enum {
	LOG_PRIO_ERR = 3,
	LOG_PRIO_WARN = 4,
	LOG_PRIO_NOTICE = 5,
	LOG_PRIO_INFO = 6,
	LOG_PRIO_DEBUG = 7
};

/* Open /dev/kmsg and /dev/console; safe to call again once devtmpfs is mounted. */
void log_open(void);
/* Daemons: lines go to kmsg only (console_print still reaches the console). */
void log_kmsg_only(void);
/* Runtime tool: write to stderr instead of kmsg/console. */
void log_use_stderr(void);
void log_set_debug(bool on);
bool log_debug_enabled(void);

void slog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs with errno = -err so "%m" names it, and returns err (negative). */
int slog_errno(int prio, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Writes straight to the console, without a prefix: banners, countdowns. */
void console_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define log_error(...) slog(LOG_PRIO_ERR, __VA_ARGS__)
#define log_warn(...) slog(LOG_PRIO_WARN, __VA_ARGS__)
#define log_notice(...) slog(LOG_PRIO_NOTICE, __VA_ARGS__)
#define log_info(...) slog(LOG_PRIO_INFO, __VA_ARGS__)
#define log_debug(...)                                                                             \
	do {                                                                                       \
		if (log_debug_enabled())                                                           \
			slog(LOG_PRIO_DEBUG, __VA_ARGS__);                                         \
	} while (0)
#define log_error_errno(err, ...) slog_errno(LOG_PRIO_ERR, (err), __VA_ARGS__)
#define log_warn_errno(err, ...) slog_errno(LOG_PRIO_WARN, (err), __VA_ARGS__)

#endif
