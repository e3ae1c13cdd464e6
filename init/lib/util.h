/* SPDX-License-Identifier: GPL-2.0-only */
/* Small file and time helpers; all return 0/length or -errno and never log. */
#ifndef STRATA_UTIL_H
#define STRATA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* a macro's value as a string literal: STR(REQ_MAX_KEEP) is "32" */
#define STR_(x) #x
#define STR(x) STR_(x)

uint64_t now_boottime_ns(void);
/* Starts fn(arg) on a thread with a stack of stack bytes; false when it could not. */
bool thread_start(pthread_t *thread, size_t stack, void *(*fn)(void *), void *arg);
/* CPU time this process has used (CLOCK_PROCESS_CPUTIME_ID). */
uint64_t process_cpu_ns(void);
/* User and system CPU time of this process (getrusage), in ns. */
void process_rusage_ns(uint64_t *user_ns, uint64_t *sys_ns);
/* A "Key:   N kB" field of /proc/PID/status text; -1 when absent. */
long proc_status_kb(const char *status, const char *key);
/* Reads at most len-1 bytes and NUL-terminates. Returns the length or -errno. */
/* A decimal number without sign or trailing text, at most max. Returns 0 or -EINVAL. */
int parse_uint(const char *s, unsigned max, unsigned *out);

ssize_t read_file(const char *path, char *buf, size_t len);
/* Waits up to ms for path to exist (devtmpfs makes a new device's node
 * asynchronously); 0 once it does, else -ENODEV. */
int wait_for_path(const char *path, unsigned ms);
/* Reads fd to its end or len - 1 bytes and NUL-terminates; the length or -errno. */
ssize_t read_fd(int fd, char *buf, size_t len);
/* Writes path.tmp, fsyncs it when durable, renames it over path. */
int write_file_atomic(const char *path, const void *data, size_t len, bool durable);
/* Makes /dev/console stdin, stdout and stderr. Returns 0 or -errno. */
int attach_console(void);
/*
 * Deletes everything below dirfd (which it closes) that lives on device dev:
 * never follows a symlink, never crosses into another filesystem, stops 256
 * directories deep.
 */
void remove_tree_contents(int dirfd, dev_t dev);
/* mkdir -p; existing directories are fine. */
int mkdir_p(const char *path, mode_t mode);
/* snprintf that reports truncation as -ENAMETOOLONG. */
int xsnprintf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), warn_unused_result));

#endif
