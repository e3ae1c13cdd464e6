/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel module loading with finit_module; the list comes from the board. */
#ifndef STRATA_MODULES_H
#define STRATA_MODULES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define MODPLAN_MAX 64

enum mod_state { MOD_PENDING, MOD_LOADING, MOD_DONE, MOD_FAILED, MOD_SKIPPED };

struct modplan_entry {
	char name[64];
	char params[512];
	uint64_t deps; /* bit i: needs entry i loaded first */
	enum mod_state state;
	int err;     /* -errno when FAILED; for SKIPPED, the index of the failed dependency */
	uint64_t ns; /* time finit_module took */
	int builtin; /* built into the kernel: its parameters are applied, nothing loaded */
};

/* The board's module list with dependencies: loaded in parallel, in dependency order. */
struct modplan {
	struct modplan_entry e[MODPLAN_MAX];
	size_t n;
	pthread_mutex_t lock; /* the states, while modplan_run loads */
	pthread_cond_t changed;
	/* applies a built-in module's parameters; NULL: nothing to do for them */
	int (*builtin_apply)(const char *name, const char *params);
};

/*
 * Next entry of a module list: "name [param=value ...]" per line, '#'
 * comments. Returns 1 with name/params filled, 0 at the end, -EINVAL for a
 * bad name, -ENAMETOOLONG for an oversized line (both skip the line).
 */
int modlist_next(const char **cursor, char *name, size_t namelen, char *params, size_t paramlen);

/*
 * Loads dir/name.ko.xz (decompressed by the kernel) or dir/name.ko with params.
 * Returns 0 (also when already loaded or built in) or -errno.
 */
int module_load(const char *dir, const char *name, const char *params);

/*
 * Builds a plan from the module list and a dependency text ("name: dep dep"
 * per line; unknown names are ignored). Bad list lines are reported through
 * report(arg, line_number, -errno) and skipped. Returns 0 or -E2BIG.
 */
int modplan_parse(struct modplan *plan, const char *list, const char *deps,
		  void (*report)(void *arg, unsigned line, int err), void *arg);

/*
 * Marks the entries named in text (one name per line, the kernel's
 * modules.builtin reduced to names) as built into the kernel.
 */
void modplan_mark_builtin(struct modplan *plan, const char *text);

/*
 * Next "key=value" word of a parameter string as the kernel splits it
 * (double quotes may hold spaces and are dropped). Returns 1 with key and
 * value filled (value empty for a bare key), 0 at the end, -ENAMETOOLONG.
 */
int modparam_next(const char **cursor, char *key, size_t keylen, char *val, size_t vallen);

/*
 * Picks the next entry whose dependencies are all loaded and marks it
 * LOADING; entries depending on a failed one become SKIPPED. Returns its
 * index, -EAGAIN when nothing is ready yet, -ENOENT when nothing is left.
 */
int modplan_next(struct modplan *plan);

/* Loads every entry with up to `threads` loaders at once. */
void modplan_run(struct modplan *plan, const char *dir, unsigned threads);

/*
 * From another thread while modplan_run loads: waits until module name is
 * loaded or cannot be. Returns 0 (loaded, or not in the plan), the load's
 * -errno, or -ENOENT when a dependency failed.
 */
int modplan_wait(struct modplan *plan, const char *name);

/* From another thread: waits until a module is loaded or fails, or for ms. */
void modplan_wait_change(struct modplan *plan, unsigned ms);

#endif
