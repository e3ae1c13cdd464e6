// SPDX-License-Identifier: GPL-2.0-only
/* Kernel module loading with finit_module; the list comes from the board. */
#include "modules.h"

#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

static bool valid_module_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

int modlist_next(const char **cursor, char *name, size_t namelen, char *params, size_t paramlen)
{
	const char *p = *cursor;
	for (;;) {
		const char *line = p, *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len == 0 && !nl) {
			*cursor = p;
			return 0;
		}
		p = line + len + (nl ? 1 : 0);
		*cursor = p;
		while (len && (*line == ' ' || *line == '\t')) {
			line++;
			len--;
		}
		while (len &&
		       (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
			len--;
		if (len == 0 || *line == '#')
			continue;
		size_t nlen = 0;
		while (nlen < len && line[nlen] != ' ' && line[nlen] != '\t')
			nlen++;
		const char *rest = line + nlen;
		size_t rlen = len - nlen;
		while (rlen && (*rest == ' ' || *rest == '\t')) {
			rest++;
			rlen--;
		}
		if (nlen >= namelen || rlen >= paramlen)
			return -ENAMETOOLONG;
		memcpy(name, line, nlen);
		name[nlen] = '\0';
		memcpy(params, rest, rlen);
		params[rlen] = '\0';
		return valid_module_name(name) ? 1 : -EINVAL;
	}
}

int module_load(const char *dir, const char *name, const char *params)
{
	static const struct {
		const char *suffix;
		int flags;
	} kinds[] = {{".ko.xz", MODULE_INIT_COMPRESSED_FILE}, {".ko", 0}};
	char path[256];

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		int n = snprintf(path, sizeof(path), "%s/%s%s", dir, name, kinds[i].suffix);
		if (n < 0 || (size_t)n >= sizeof(path))
			return -ENAMETOOLONG;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		long r = syscall(SYS_finit_module, fd, params, kinds[i].flags);
		int err = errno;
		close(fd);
		if (r == 0 || err == EEXIST)
			return 0;
		return -err;
	}
	return -ENOENT;
}

static int plan_index(const struct modplan *plan, const char *name, size_t len)
{
	for (size_t i = 0; i < plan->n; i++)
		if (strlen(plan->e[i].name) == len && strncmp(plan->e[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

int modplan_parse(struct modplan *plan, const char *list, const char *deps,
		  void (*report)(void *arg, unsigned line, int err), void *arg)
{
	struct modplan_entry *e;
	unsigned line = 0;
	int r;

	memset(plan, 0, sizeof(*plan));
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&plan->lock, NULL);
	pthread_cond_init(&plan->changed, &ca);
	pthread_condattr_destroy(&ca);
	for (;;) {
		/* a full plan still parses into its last slot to see whether more follow */
		e = &plan->e[plan->n < MODPLAN_MAX ? plan->n : MODPLAN_MAX - 1];
		struct modplan_entry saved = *e;
		r = modlist_next(&list, e->name, sizeof(e->name), e->params, sizeof(e->params));
		if (r == 0)
			break;
		line++;
		if (r < 0) {
			if (report)
				report(arg, line, r);
			continue;
		}
		if (plan->n == MODPLAN_MAX) {
			*e = saved;
			return -E2BIG;
		}
		plan->n++;
	}
	/* "name: dep dep" lines; a module may only wait for one listed before it */
	for (const char *p = deps; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		int self = colon ? plan_index(plan, p, (size_t)(colon - p)) : -1;
		if (self >= 0) {
			const char *d = colon + 1, *end = p + len;
			while (d < end) {
				while (d < end && (*d == ' ' || *d == '\t'))
					d++;
				const char *w = d;
				while (d < end && *d != ' ' && *d != '\t')
					d++;
				int dep = d > w ? plan_index(plan, w, (size_t)(d - w)) : -1;
				if (dep >= 0 && dep < self)
					plan->e[self].deps |= UINT64_C(1) << dep;
			}
		}
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

void modplan_mark_builtin(struct modplan *plan, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		int i = len ? plan_index(plan, p, len) : -1;
		if (i >= 0)
			plan->e[i].builtin = 1;
		p += len + (p[len] ? 1 : 0);
	}
}

int modparam_next(const char **cursor, char *key, size_t keylen, char *val, size_t vallen)
{
	const char *p = *cursor;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		*cursor = p;
		return 0;
	}
	size_t k = 0, v = 0;
	bool quoted = false, in_val = false;
	for (; *p && (quoted || (*p != ' ' && *p != '\t')); p++) {
		if (*p == '"') {
			quoted = !quoted;
			continue;
		}
		if (!in_val && *p == '=') {
			in_val = true;
			continue;
		}
		char *buf = in_val ? val : key;
		size_t *n = in_val ? &v : &k, cap = in_val ? vallen : keylen;
		if (*n + 1 >= cap) {
			*cursor = p + strcspn(p, " \t");
			return -ENAMETOOLONG;
		}
		buf[(*n)++] = *p;
	}
	key[k] = '\0';
	val[v] = '\0';
	*cursor = p;
	return 1;
}

int modplan_next(struct modplan *plan)
{
	bool left = false;
	for (size_t i = 0; i < plan->n; i++) {
		struct modplan_entry *e = &plan->e[i];
		if (e->state != MOD_PENDING)
			continue;
		bool ready = true;
		for (size_t d = 0; d < plan->n && ready; d++) {
			if (!(e->deps & (UINT64_C(1) << d)))
				continue;
			enum mod_state ds = plan->e[d].state;
			if (ds == MOD_FAILED || ds == MOD_SKIPPED) {
				e->state = MOD_SKIPPED;
				e->err = (int)d;
				ready = false;
			} else if (ds != MOD_DONE) {
				ready = false;
				left = true;
			}
		}
		if (e->state == MOD_SKIPPED)
			continue;
		if (ready) {
			e->state = MOD_LOADING;
			return (int)i;
		}
	}
	for (size_t i = 0; i < plan->n; i++)
		if (plan->e[i].state == MOD_LOADING)
			left = true;
	return left ? -EAGAIN : -ENOENT;
}

struct loader {
	struct modplan *plan;
	const char *dir;
};

static void *loader_thread(void *arg)
{
	struct loader *ld = arg;
	struct modplan *plan = ld->plan;
	pthread_mutex_lock(&plan->lock);
	for (;;) {
		int i = modplan_next(plan);
		if (i == -ENOENT)
			break;
		if (i == -EAGAIN) {
			pthread_cond_wait(&plan->changed, &plan->lock);
			continue;
		}
		struct modplan_entry *e = &plan->e[i];
		pthread_mutex_unlock(&plan->lock);
		uint64_t t0 = now_boottime_ns();
		int r = !e->builtin	      ? module_load(ld->dir, e->name, e->params)
			: plan->builtin_apply ? plan->builtin_apply(e->name, e->params)
					      : 0;
		uint64_t t1 = now_boottime_ns();
		pthread_mutex_lock(&plan->lock);
		e->ns = t1 - t0;
		e->err = r;
		e->state = r < 0 ? MOD_FAILED : MOD_DONE;
		pthread_cond_broadcast(&plan->changed);
	}
	pthread_cond_broadcast(&plan->changed);
	pthread_mutex_unlock(&plan->lock);
	return NULL;
}

void modplan_run(struct modplan *plan, const char *dir, unsigned threads)
{
	struct loader ld = {plan, dir};
	pthread_t tids[8];
	unsigned started = 0;

	if (threads > ARRAY_SIZE(tids) + 1)
		threads = ARRAY_SIZE(tids) + 1;
	/* small stacks: PID 1 stays well under 1 MiB */
	for (unsigned i = 1; i < threads; i++)
		if (thread_start(&tids[started], 64 * 1024, loader_thread, &ld))
			started++;
	loader_thread(&ld); /* the calling thread loads too */
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
}

int modplan_wait(struct modplan *plan, const char *name)
{
	int i = plan_index(plan, name, strlen(name)), r = 0;
	if (i < 0)
		return 0;
	pthread_mutex_lock(&plan->lock);
	for (;;) {
		const struct modplan_entry *e = &plan->e[i];
		if (e->state == MOD_DONE || e->state == MOD_FAILED || e->state == MOD_SKIPPED) {
			r = e->state == MOD_DONE ? 0 : e->state == MOD_FAILED ? e->err : -ENOENT;
			break;
		}
		pthread_cond_wait(&plan->changed, &plan->lock);
	}
	pthread_mutex_unlock(&plan->lock);
	return r;
}

void modplan_wait_change(struct modplan *plan, unsigned ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	pthread_mutex_lock(&plan->lock);
	pthread_cond_timedwait(&plan->changed, &plan->lock, &ts);
	pthread_mutex_unlock(&plan->lock);
}
