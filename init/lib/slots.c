// SPDX-License-Identifier: GPL-2.0-only
/* A/B slots in the bootloader's boot counters: what the running system reads and edits. */
#include "slots.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void left_var(char *var, size_t len, char slot)
{
	snprintf(var, len, "BOOT_%c_LEFT", slot);
}

/* BOOT_<slot>_LEFT = tries, written as the boot script's mark-good writes it */
static int set_left(struct bootenv *env, char slot, unsigned tries)
{
	const char name[2] = {slot, '\0'};
	return bootenv_rauc_mark_good(env, name, tries);
}

/* "A B" -> "AB"; each of A and B at most once, at least one */
static int parse_order(const char *text, char *order)
{
	size_t n = 0;
	for (const char *p = text; *p;) {
		size_t w = strcspn(p, " \t\n");
		if (w) {
			if (w != 1 || (p[0] != 'A' && p[0] != 'B') || n == SLOTS_MAX ||
			    memchr(order, p[0], n))
				return -EBADMSG;
			order[n++] = p[0];
		}
		p += w;
		p += strspn(p, " \t\n");
	}
	order[n] = '\0';
	return n ? 0 : -EBADMSG;
}

/* a count as the boot script's `test -gt` and setexpr leave it: 0..9 */
static int parse_left(const char *text, unsigned *left)
{
	if (text[0] < '0' || text[0] > '0' + SLOTS_TRIES_MAX || text[1])
		return -EBADMSG;
	*left = (unsigned)(text[0] - '0');
	return 0;
}

int slots_read(const struct bootenv *env, char booted, unsigned tries, struct slots_view *v,
	       char *why, size_t len)
{
	memset(v, 0, sizeof(*v));
	v->booted = booted;
	const char *order = bootenv_get(env, "BOOT_ORDER");
	if (parse_order(order ? order : "A B", v->order) < 0) {
		snprintf(why, len, "BOOT_ORDER='%s': expected the slots A and B, each once",
			 order ? order : "");
		return -EBADMSG;
	}
	for (int i = 0; i < SLOTS_MAX; i++) {
		char var[16];
		left_var(var, sizeof(var), (char)('A' + i));
		const char *text = bootenv_get(env, var);
		v->left[i] = tries;
		if (text && parse_left(text, &v->left[i]) < 0) {
			snprintf(why, len, "%s='%s': expected a count of tries, 0 to %d", var, text,
				 SLOTS_TRIES_MAX);
			return -EBADMSG;
		}
	}
	for (const char *s = v->order; *s && !v->next; s++)
		if (v->left[*s - 'A'] > 0)
			v->next = *s;
	/* a slot ahead of the booted one without tries was tried and failed */
	for (const char *s = v->order; *s && *s != booted && booted; s++)
		if (v->left[*s - 'A'] == 0) {
			v->failed = *s;
			break;
		}
	return 0;
}

static bool is_slot(char slot)
{
	return slot == 'A' || slot == 'B';
}

int slots_mark_good(struct bootenv *env, char booted, unsigned tries)
{
	if (!is_slot(booted) || tries == 0 || tries > SLOTS_TRIES_MAX)
		return -EINVAL;
	return set_left(env, booted, tries);
}

int slots_disable(struct bootenv *env, char slot)
{
	return is_slot(slot) ? set_left(env, slot, 0) : -EINVAL;
}

static int put_first(struct bootenv *env, char slot)
{
	char order[4] = {slot, ' ', slots_other(slot), '\0'};
	return bootenv_set(env, "BOOT_ORDER", order);
}

int slots_activate(struct bootenv *env, char slot, unsigned tries)
{
	if (!is_slot(slot) || tries == 0 || tries > SLOTS_TRIES_MAX)
		return -EINVAL;
	int r = set_left(env, slot, tries);
	return r < 0 ? r : put_first(env, slot);
}

int slots_rollback(struct bootenv *env, char booted, unsigned tries)
{
	if (!is_slot(booted))
		return -EINVAL;
	struct slots_view v;
	char why[96];
	int r = slots_read(env, booted, tries, &v, why, sizeof(why));
	if (r < 0)
		return r;
	char other = slots_other(booted);
	if (v.left[other - 'A'] == 0)
		return -ENOENT;
	return put_first(env, other);
}
