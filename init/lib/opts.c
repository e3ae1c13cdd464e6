// SPDX-License-Identifier: GPL-2.0-only
/* Boot options: Kconfig defaults overridden by strata.* kernel command line keys. */
#include "opts.h"

#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fatal_names[] = {
    [FATAL_SHELL] = "shell", [FATAL_HANG] = "hang", [FATAL_REBOOT] = "reboot"};
static const char *const degraded_names[] = {
    [DEGRADED_TMPFS] = "tmpfs", [DEGRADED_EMERGENCY] = "emergency", [DEGRADED_REBOOT] = "reboot"};

const char *fatal_policy_name(enum fatal_policy p)
{
	return (unsigned)p < sizeof(fatal_names) / sizeof(fatal_names[0]) ? fatal_names[p] : "?";
}

const char *degraded_policy_name(enum degraded_policy p)
{
	return (unsigned)p < sizeof(degraded_names) / sizeof(degraded_names[0]) ? degraded_names[p]
										: "?";
}

static int lookup(const char *const *names, size_t n, const char *val)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], val) == 0)
			return (int)i;
	return -1;
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

void opts_defaults(struct strata_opts *o)
{
	memset(o, 0, sizeof(*o));
	copy_str(o->init, sizeof(o->init), CONFIG_STRATA_INIT);
	copy_str(o->root_part, sizeof(o->root_part), CONFIG_STRATA_ROOT_PART);
	copy_str(o->data_part, sizeof(o->data_part), CONFIG_STRATA_DATA_PART);
	copy_str(o->user_part, sizeof(o->user_part), CONFIG_STRATA_USER_PART);
	o->fatal = CONFIG_STRATA_FATAL_REBOOT ? FATAL_REBOOT
		   : CONFIG_STRATA_FATAL_HANG ? FATAL_HANG
					      : FATAL_SHELL;
	o->degraded = CONFIG_STRATA_DEGRADED_EMERGENCY ? DEGRADED_EMERGENCY
		      : CONFIG_STRATA_DEGRADED_REBOOT  ? DEGRADED_REBOOT
						       : DEGRADED_TMPFS;
	o->rootwait_ms = CONFIG_STRATA_ROOTWAIT_MS;
	o->debug = CONFIG_STRATA_DEBUG;
	/* the build refuses any other value (tools/check-config.sh) */
	o->stack_levels = STACK_MAX_LEVELS;
	stack_parse(CONFIG_STRATA_STACK, &o->stack_levels, &o->stack_collapsed);
}

const char *stack_parse(const char *text, unsigned *levels, bool *collapsed)
{
	static const char *const names[STACK_MAX_LEVELS] = {"system", "user"};
	const char *word[STACK_MAX_LEVELS + 1];
	size_t len[STACK_MAX_LEVELS + 1];
	unsigned n = 0, joined = 0;
	for (const char *p = text; *p;) {
		size_t l = strcspn(p, " ,+");
		if (l) {
			/* depth first: it is the reason whatever the names say */
			if (n == STACK_MAX_LEVELS)
				return "names more than 2 overlay levels: overlayfs nests at most "
				       "2 "
				       "(the kernel's FILESYSTEM_MAX_STACK_DEPTH)";
			word[n] = p;
			len[n++] = l;
		}
		joined += p[l] == '+';
		p += l + (p[l] != '\0');
	}
	if (n == 0)
		return "names no overlay level (expected \"system\", \"system,user\" or "
		       "\"system+user\")";
	if (joined && (n != 2 || joined != 1 || strcspn(text, " ,") != strlen(text)))
		return "joins layers with '+' only as \"system+user\"";
	for (unsigned i = 0; i < n; i++)
		if (strlen(names[i]) != len[i] || strncmp(word[i], names[i], len[i]) != 0)
			return i == 0 ? "must start with \"system\", the overlay over the lowers"
				      : "may only add \"user\" over \"system\"";
	*levels = n;
	*collapsed = joined != 0;
	return NULL;
}

int cmdline_next(const char **cursor, char *key, size_t keylen, char *val, size_t vallen,
		 bool *has_val)
{
	const char *p = *cursor;
	size_t k = 0, v = 0;
	bool in_quote = false, in_val = false, overflow = false;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p == '\0') {
		*cursor = p;
		return 0;
	}
	*has_val = false;
	for (; *p; p++) {
		char c = *p;
		if (c == '"') {
			in_quote = !in_quote;
			continue;
		}
		if (!in_quote && (c == ' ' || c == '\t' || c == '\n'))
			break;
		if (!in_val && c == '=') {
			in_val = true;
			*has_val = true;
			continue;
		}
		if (in_val) {
			if (v + 1 < vallen)
				val[v++] = c;
			else
				overflow = true;
		} else {
			if (k + 1 < keylen)
				key[k++] = c;
			else
				overflow = true;
		}
	}
	key[k] = '\0';
	val[v] = '\0';
	*cursor = p;
	return overflow ? -ENAMETOOLONG : 1;
}

static bool parse_bool(const char *val, bool has_val, bool *out)
{
	if (!has_val || strcmp(val, "1") == 0 || strcmp(val, "yes") == 0 ||
	    strcmp(val, "on") == 0 || strcmp(val, "true") == 0) {
		*out = true;
		return true;
	}
	if (strcmp(val, "0") == 0 || strcmp(val, "no") == 0 || strcmp(val, "off") == 0 ||
	    strcmp(val, "false") == 0) {
		*out = false;
		return true;
	}
	return false;
}

/* A partition name as it appears in /proc/mtd between quotes. */
static bool valid_part_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s == '"' || *s == '/' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

static const char *apply(struct strata_opts *o, const char *key, const char *val, bool has_val)
{
	int i;
	if (strcmp(key, "debug") == 0)
		return parse_bool(val, has_val, &o->debug) ? NULL : "expects 0 or 1";
	if (!has_val)
		return "needs a value";
	if (strcmp(key, "init") == 0) {
		if (val[0] != '/')
			return "must be an absolute path";
		if (strlen(val) >= sizeof(o->init))
			return "is too long";
		copy_str(o->init, sizeof(o->init), val);
	} else if (strcmp(key, "root") == 0 || strcmp(key, "data") == 0 ||
		   strcmp(key, "user") == 0) {
		char *dst = key[0] == 'r'   ? o->root_part
			    : key[0] == 'd' ? o->data_part
					    : o->user_part;
		if (!valid_part_name(val))
			return "is not a partition name";
		if (strlen(val) >= sizeof(o->root_part))
			return "is too long";
		copy_str(dst, sizeof(o->root_part), val);
	} else if (strcmp(key, "slot") == 0) {
		if (val[0] < 'A' || val[0] > 'Z' || val[1])
			return "expects a slot's letter (A, B)";
		copy_str(o->slot, sizeof(o->slot), val);
	} else if (strcmp(key, "fatal") == 0) {
		if ((i = lookup(fatal_names, 3, val)) < 0)
			return "expects shell, hang or reboot";
		o->fatal = (enum fatal_policy)i;
		o->fatal_given = true;
	} else if (strcmp(key, "degraded") == 0) {
		if ((i = lookup(degraded_names, 3, val)) < 0)
			return "expects tmpfs, emergency or reboot";
		o->degraded = (enum degraded_policy)i;
	} else if (strcmp(key, "powercut") == 0) {
		if (!CONFIG_STRATA_FAULT_INJECTION)
			return "needs CONFIG_STRATA_FAULT_INJECTION";
		if (strlen(val) >= sizeof(o->powercut))
			return "is too long";
		copy_str(o->powercut, sizeof(o->powercut), val);
	} else if (strcmp(key, "mountapi") == 0) {
		if (!CONFIG_STRATA_FAULT_INJECTION)
			return "needs CONFIG_STRATA_FAULT_INJECTION";
		if (strcmp(val, "legacy") != 0)
			return "expects legacy";
		o->legacy_mount = true;
	} else if (strcmp(key, "fault") == 0) {
		if (!CONFIG_STRATA_FAULT_INJECTION)
			return "needs CONFIG_STRATA_FAULT_INJECTION";
		if (strcmp(val, "root-move") != 0)
			return "expects root-move";
		o->fault_root_move = true;
	} else if (strcmp(key, "stack") == 0) {
		const char *why = stack_parse(val, &o->stack_levels, &o->stack_collapsed);
		if (why)
			return why;
	} else if (strcmp(key, "rootwait") == 0) {
		if (parse_uint(val, 600000, &o->rootwait_ms) < 0)
			return "expects milliseconds (0..600000)";
	} else {
		return "is not a known key";
	}
	return NULL;
}

int opts_parse_cmdline(struct strata_opts *o, const char *cmdline, opts_report_fn report, void *arg)
{
	char key[64], val[256];
	bool has_val;
	int rejected = 0, r;

	while ((r = cmdline_next(&cmdline, key, sizeof(key), val, sizeof(val), &has_val)) != 0) {
		if (strncmp(key, "strata.", 7) != 0)
			continue;
		const char *why = r < 0 ? "is too long" : apply(o, key + 7, val, has_val);
		if (why) {
			rejected++;
			if (report)
				report(arg, key, why);
		}
	}
	return rejected;
}

static bool module_name_eq(const char *a, size_t alen, const char *b)
{
	size_t i;
	for (i = 0; i < alen && b[i]; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
		if (x != y)
			return false;
	}
	return i == alen && b[i] == '\0';
}

int cmdline_module_params(const char *cmdline, const char *module, char *out, size_t outlen)
{
	char key[128], val[512];
	bool has_val;
	int r;
	size_t used = strlen(out);

	while ((r = cmdline_next(&cmdline, key, sizeof(key), val, sizeof(val), &has_val)) != 0) {
		const char *dot = strchr(key, '.');
		if (r < 0 || !dot || !module_name_eq(key, (size_t)(dot - key), module))
			continue;
		const char *quote = strchr(val, ' ') ? "\"" : "";
		int n = snprintf(out + used, outlen - used, "%s%s%s%s%s%s", used ? " " : "",
				 dot + 1, has_val ? "=" : "", quote, val, quote);
		if (n < 0 || (size_t)n >= outlen - used)
			return -ENAMETOOLONG;
		used += (size_t)n;
	}
	return 0;
}

int cmdline_builtin_dropped(const char *cmdline, const char *module, char *out, size_t outlen)
{
	char all[1024] = "";
	if (strcmp(module, "phram") != 0 && strcmp(module, "block2mtd") != 0)
		return 0;
	int r = cmdline_module_params(cmdline, module, all, sizeof(all));
	char *last = strrchr(all, ' '); /* their values have no blanks */
	if (r < 0 || !last)
		return r;
	*last = '\0';
	size_t used = strlen(out);
	int n = snprintf(out + used, outlen - used, "%s%s", used ? " " : "", all);
	return n < 0 || (size_t)n >= outlen - used ? -ENAMETOOLONG : 0;
}

int opts_slot_part(const struct strata_opts *o, const char *name, char *buf, size_t len)
{
	int n = o->slot[0] ? snprintf(buf, len, "%s_%c", name, o->slot[0] - 'A' + 'a')
			   : snprintf(buf, len, "%s", name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
