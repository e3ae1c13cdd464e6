// SPDX-License-Identifier: GPL-2.0-only
/* The stack as the running system sees it: mount table, uppers, lowers. For the runtime tool. */
#include "inspect.h"
#include "json.h"
#include "paths.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

/* mountinfo escapes ' ', '\t', '\n' and '\\' as octal \\NNN */
static void unescape_octal(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Splits LINE in place at spaces; returns the number of fields (at most MAX). */
static int split_fields(char *line, char **field, int max)
{
	int n = 0;
	char *save;
	for (char *tok = strtok_r(line, " ", &save); tok && n < max;
	     tok = strtok_r(NULL, " ", &save))
		field[n++] = tok;
	return n;
}

/*
 * A mountinfo line: ID PARENT MAJ:MIN ROOT MOUNTPOINT MOPTS [OPTIONAL...] - FSTYPE SOURCE SOPTS
 */
int mountinfo_find(const char *text, const char *mountpoint, struct mount_entry *out)
{
	int found = -ENOENT;
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[2048], *f[32];
		if (len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = '\0';
			int n = split_fields(line, f, (int)ARRAY_SIZE(f)), sep = 6;
			while (sep < n && strcmp(f[sep], "-") != 0)
				sep++;
			if (sep + 3 < n) {
				char *mp = f[4], *mopts = f[5], *src = f[sep + 2];
				unescape_octal(mp);
				if (strcmp(mp, mountpoint) == 0) {
					memset(out, 0, sizeof(*out));
					unescape_octal(src);
					if (snprintf(out->mountpoint, sizeof(out->mountpoint), "%s",
						     mp) < (int)sizeof(out->mountpoint) &&
					    snprintf(out->fstype, sizeof(out->fstype), "%s",
						     f[sep + 1]) < (int)sizeof(out->fstype) &&
					    snprintf(out->source, sizeof(out->source), "%s", src) <
						(int)sizeof(out->source) &&
					    snprintf(out->options, sizeof(out->options), "%s,%s",
						     mopts,
						     f[sep + 3]) < (int)sizeof(out->options)) {
						out->readonly =
						    strncmp(mopts, "ro", 2) == 0 &&
						    (mopts[2] == ',' || mopts[2] == '\0');
						found = 0;
					} else {
						found = -ENAMETOOLONG;
					}
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return found;
}

int ovl_option(const char *options, const char *key, char *out, size_t outlen)
{
	return ovl_option_at(options, key, 0, out, outlen);
}

int ovl_option_at(const char *options, const char *key, unsigned nth, char *out, size_t outlen)
{
	size_t klen = strlen(key);
	for (const char *p = options; p && *p;) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=' && nth-- == 0) {
			size_t used = 0;
			for (p += klen + 1; *p && *p != ','; p++) {
				if (*p == '\\' && p[1])
					p++;
				if (used + 1 >= outlen)
					return -ENAMETOOLONG;
				out[used++] = *p;
			}
			out[used] = '\0';
			return 0;
		}
		/* next option: skip escaped commas */
		while (*p && *p != ',') {
			if (*p == '\\' && p[1])
				p++;
			p++;
		}
		if (*p == ',')
			p++;
	}
	return -ENOENT;
}

/* The filesystem holding dir: the longest mountpoint that is a prefix of it. */
static void holding_fs(const char *mountinfo, const char *dir, struct mount_entry *out)
{
	char prefix[160];
	snprintf(prefix, sizeof(prefix), "%s", dir);
	for (;;) {
		if (mountinfo_find(mountinfo, prefix[0] ? prefix : "/", out) == 0)
			return;
		char *slash = strrchr(prefix, '/');
		if (!slash)
			return;
		*slash = '\0';
	}
}

static int add_layer(struct stack *st, const char *mountinfo, const char *role, const char *dir,
		     const char *stack, bool upper)
{
	if (st->n == STACK_MAX)
		return -E2BIG;
	struct stack_layer *l = &st->layers[st->n++];
	memset(l, 0, sizeof(*l));
	snprintf(l->role, sizeof(l->role), "%s", role);
	snprintf(l->dir, sizeof(l->dir), "%s", dir);
	snprintf(l->stack, sizeof(l->stack), "%s", stack);
	l->lower = -1;
	holding_fs(mountinfo, dir, &l->fs);
	struct statvfs sv;
	if (upper && statvfs(dir, &sv) == 0) {
		l->size = (uint64_t)sv.f_blocks * sv.f_frsize;
		l->avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	}
	return 0;
}

int stack_levels(void)
{
	struct stat root, system;
	if (stat(STRATA_SYSTEM_DIR, &system) < 0 || stat("/", &root) < 0)
		return -errno;
	/* an overlay's root has the overlay's own device: the same one means the same overlay */
	return root.st_dev == system.st_dev && root.st_ino == system.st_ino ? 1 : 2;
}

int stack_read(struct stack *st)
{
	static char text[65536];
	struct mount_entry root, system;
	char upper[160], lower[512];
	memset(st, 0, sizeof(*st));
	ssize_t n = read_file("/proc/self/mountinfo", text, sizeof(text));
	if (n < 0)
		return (int)n;
	if (mountinfo_find(text, "/", &root) < 0 || strcmp(root.fstype, "overlay") != 0 ||
	    mountinfo_find(text, STRATA_SYSTEM_DIR, &system) < 0)
		return -ENOENT;
	if (stack_levels() == 2 && ovl_option(root.options, "upperdir", upper, sizeof(upper)) == 0)
		add_layer(st, text, "user", upper, "root", true);
	if (ovl_option(system.options, "upperdir", upper, sizeof(upper)) == 0)
		add_layer(st, text, "system", upper, "system", true);
	if (ovl_option(system.options, "lowerdir", lower, sizeof(lower)) == 0) {
		/* lowerdir=A:B::D with '\\:' escaped; unescaped by ovl_option, so split on ':';
		 * layers after "::" are data-only */
		const char *role = "lower";
		int index = 0;
		for (char *tok = lower, *next; tok; tok = next) {
			next = strchr(tok, ':');
			if (next)
				*next++ = '\0';
			if (!*tok)
				role = "data-only";
			else if (add_layer(st, text, role, tok, "system", false) == 0 &&
				 strcmp(role, "lower") == 0)
				st->layers[st->n - 1].lower = index++;
		}
	}
	/* the new mount API shows one "lowerdir+=" / "datadir+=" per layer */
	for (unsigned i = 0;
	     ovl_option_at(system.options, "lowerdir+", i, lower, sizeof(lower)) == 0; i++)
		if (add_layer(st, text, "lower", lower, "system", false) == 0)
			st->layers[st->n - 1].lower = (int)i;
	for (unsigned i = 0;
	     ovl_option_at(system.options, "datadir+", i, lower, sizeof(lower)) == 0; i++)
		add_layer(st, text, "data-only", lower, "system", false);
	/* the boot record names each lower's partition or volume */
	bool have_record = read_file(STRATA_BOOT_RECORD, text, sizeof(text)) > 0;
	const char *cur = have_record ? json_find_array(text, "layers") : NULL;
	char obj[512], mp[160], name[32];
	while (cur && json_array_next(&cur, obj, sizeof(obj)) > 0)
		if (json_get_string(obj, "mountpoint", mp, sizeof(mp)) == 0 &&
		    json_get_string(obj, "name", name, sizeof(name)) == 0)
			for (size_t i = 0; i < st->n; i++)
				if (st->layers[i].lower >= 0 && strcmp(st->layers[i].dir, mp) == 0)
					snprintf(st->layers[i].name, sizeof(name), "%s", name);
	/* and what the boot's verification of each layer image found */
	cur = have_record ? json_find_array(text, "verity") : NULL;
	while (cur && json_array_next(&cur, obj, sizeof(obj)) > 0) {
		if (json_get_string(obj, "layer", name, sizeof(name)) < 0)
			continue;
		for (size_t i = 0; i < st->n; i++) {
			struct stack_layer *l = &st->layers[i];
			if (l->lower < 0 || strcmp(l->name, name) != 0)
				continue;
			json_get_string(obj, "state", l->verity_state, sizeof(l->verity_state));
			if (json_get_string(obj, "mode", l->verity_mode, sizeof(l->verity_mode)) <
			    0)
				snprintf(l->verity_mode, sizeof(l->verity_mode), "digest");
			json_get_string(obj, "expected", l->verity_expected,
					sizeof(l->verity_expected));
			json_get_string(obj, "measured", l->verity_measured,
					sizeof(l->verity_measured));
		}
	}
	return 0;
}
