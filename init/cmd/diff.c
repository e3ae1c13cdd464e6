// SPDX-License-Identifier: GPL-2.0-only
/* strata diff: what an upper changes against the layers below it. Read-only. */
#include "inspect.h"
#include "paths.h"
#include "cmd.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct change {
	size_t path; /* offset in changes.names */
	const char *change, *type;
	long long size;
};

/* The changes, and their paths one after another in one block (malloc.c). */
struct changes {
	struct change *v;
	char *names;
	size_t n, cap, names_len, names_cap;
};

static void *grow(void *p, size_t *cap, size_t need, size_t unit)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : 64;
	p = realloc(p, *cap * unit);
	if (!p) {
		perror("strata diff");
		exit(1);
	}
	return p;
}

static void add_change(struct changes *c, const char *path, const char *change, const char *type,
		       long long size)
{
	size_t len = strlen(path) + 1;
	c->v = grow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->names = grow(c->names, &c->names_cap, c->names_len + len, 1);
	memcpy(c->names + c->names_len, path, len);
	c->v[c->n++] = (struct change){c->names_len, change, type, size};
	c->names_len += len;
}

static void walk(const char *upper, const char *below, const char *rel, dev_t dev,
		 struct changes *c)
{
	char dir[768];
	snprintf(dir, sizeof(dir), "%s%s", upper, rel);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		char r2[512], up[768], low[768];
		struct stat st, lst;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (xsnprintf(r2, sizeof(r2), "%s/%s", rel, de->d_name) < 0)
			continue;
		snprintf(up, sizeof(up), "%s%s", upper, r2);
		snprintf(low, sizeof(low), "%s%s", below, r2);
		if (lstat(up, &st) < 0 || st.st_dev != dev)
			continue;
		bool in_below = lstat(low, &lst) == 0;
		if (is_whiteout(&st)) {
			add_change(c, r2, "deleted", in_below ? kind_of(&lst) : "", 0);
		} else if (S_ISDIR(st.st_mode)) {
			if (is_opaque(up))
				add_change(c, r2, "opaque", "directory", 0);
			else if (!in_below)
				add_change(c, r2, "added", "directory", 0);
			walk(upper, below, r2, dev, c);
		} else {
			add_change(c, r2, in_below ? "modified" : "added", kind_of(&st),
				   (long long)st.st_size);
		}
	}
	closedir(d);
}

static const char *sort_names; /* qsort's comparator has no argument of its own */

static int by_path(const void *a, const void *b)
{
	return strcmp(sort_names + ((const struct change *)a)->path,
		      sort_names + ((const struct change *)b)->path);
}

int cmd_diff(int argc, char **argv)
{
	struct stack st;
	/* by default the layer / writes to: the user layer, or the system layer when alone */
	bool json = false, system = stack_levels() == 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--user") == 0) {
			system = false;
		} else if (strcmp(argv[i], "--system") == 0) {
			system = true;
		} else {
			return cmd_usage_error(argv[0], "--user, --system or --json",
					       "unknown argument '%s'", argv[i]);
		}
	}
	if (read_stack("strata diff", &st) < 0)
		return 1;
	const char *role = system ? "system" : "user";
	size_t i;
	for (i = 0; i < st.n && strcmp(st.layers[i].role, role) != 0; i++)
		;
	if (i + 1 >= st.n) {
		fprintf(stderr, "strata diff: no %s layer in the stack\n", role);
		return 1;
	}
	/* below the user upper lies the whole system overlay; below the system upper, its lowers */
	const char *upper = st.layers[i].dir;
	const char *below = system ? st.layers[i + 1].dir : STRATA_SYSTEM_DIR;
	struct stat ust;
	if (lstat(upper, &ust) < 0) {
		fprintf(stderr, "strata diff: cannot read '%s': %s\n", upper, strerror(errno));
		return 1;
	}
	struct changes c = {0};
	walk(upper, below, "", ust.st_dev, &c);
	sort_names = c.names;
	if (c.n) /* qsort(NULL, 0) is undefined */
		qsort(c.v, c.n, sizeof(*c.v), by_path);
	long long total = 0;
	if (json) {
		printf("{\"layer\": \"%s\", \"upper\": ", role);
		json_str(stdout, upper);
		printf(", \"changes\": [");
	}
	for (size_t k = 0; k < c.n; k++) {
		total += c.v[k].size;
		if (json) {
			printf("%s\n  {\"path\": ", k ? "," : "");
			json_str(stdout, c.names + c.v[k].path);
			printf(", \"change\": \"%s\", \"type\": \"%s\", \"size\": %lld}",
			       c.v[k].change, c.v[k].type, c.v[k].size);
		} else {
			printf("%c %-48s %10lld\n",
			       c.v[k].change[0] == 'a'	 ? 'A'
			       : c.v[k].change[0] == 'm' ? 'M'
			       : c.v[k].change[0] == 'd' ? 'D'
							 : 'O',
			       c.names + c.v[k].path, c.v[k].size);
		}
	}
	if (json)
		printf("\n], \"total_size\": %lld}\n", total);
	else
		printf("%zu change%s in the %s layer, %lld bytes\n", c.n, c.n == 1 ? "" : "s", role,
		       total);
	free(c.v);
	free(c.names);
	return 0;
}
