// SPDX-License-Identifier: GPL-2.0-only
/* The reset button's policy: hold-time state machine and /etc/strata/button. Pure code. */
#include "buttonfsm.h"

#include "util.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void button_conf_defaults(struct button_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->key = CONFIG_STRATA_BUTTON_KEY;
	c->short_ms = 1000;
	c->user_ms = CONFIG_STRATA_BUTTON_USER_MS;
	c->full_ms = CONFIG_STRATA_BUTTON_FULL_MS;
	c->short_reboot = CONFIG_STRATA_BUTTON_SHORT_REBOOT;
	/* the Kconfig string is checked against the size at build time */
	_Static_assert(sizeof(CONFIG_STRATA_BUTTON_LED) <= sizeof(c->led), "LED name too long");
	memcpy(c->led, CONFIG_STRATA_BUTTON_LED, sizeof(CONFIG_STRATA_BUTTON_LED));
}

static int conf_line(struct button_conf *c, const char *name, const char *val)
{
	static const struct {
		char name[9];
		unsigned char off;
		unsigned max;
	} nums[] = {
	    {"key", offsetof(struct button_conf, key), 0x2ff /* KEY_MAX */},
	    {"short_ms", offsetof(struct button_conf, short_ms), 600000},
	    {"user_ms", offsetof(struct button_conf, user_ms), 600000},
	    {"full_ms", offsetof(struct button_conf, full_ms), 600000},
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (strcmp(name, nums[i].name) == 0)
			return parse_uint(val, nums[i].max, (unsigned *)((char *)c + nums[i].off));
	if (strcmp(name, "short") == 0) {
		c->short_reboot = strcmp(val, "reboot") == 0;
		return c->short_reboot || strcmp(val, "nothing") == 0 ? 0 : -EINVAL;
	}
	if (strcmp(name, "led") == 0) {
		size_t n = strlen(val);
		const char *star = strchr(val, '*');
		if (n >= sizeof(c->led) || strchr(val, '/') || strcmp(val, "..") == 0 ||
		    strcmp(val, ".") == 0 || (star && strchr(star + 1, '*')))
			return -EINVAL;
		memcpy(c->led, val, n + 1);
		return 0;
	}
	return -EINVAL;
}

bool button_led_match(const char *pattern, const char *name)
{
	const char *star = strchr(pattern, '*');
	if (!star)
		return strcmp(pattern, name) == 0;
	size_t pre = (size_t)(star - pattern), post = strlen(star + 1), len = strlen(name);
	return len >= pre + post && strncmp(name, pattern, pre) == 0 &&
	       strcmp(name + len - post, star + 1) == 0;
}

int button_conf_parse(struct button_conf *c, const char *text, unsigned *bad_line)
{
	struct button_conf n = *c;
	char line[128];
	unsigned no = 0;
	*bad_line = 0;
	while (*text) {
		size_t len = strcspn(text, "\n");
		no++;
		if (len >= sizeof(line)) {
			*bad_line = no;
			return -EINVAL;
		}
		memcpy(line, text, len);
		line[len] = '\0';
		text += len + (text[len] == '\n');
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *name = line + strspn(line, " \t");
		if (!*name)
			continue;
		char *val = name + strcspn(name, " \t");
		if (*val)
			*val++ = '\0';
		val += strspn(val, " \t");
		char *end = val + strlen(val);
		while (end > val && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (conf_line(&n, name, val) < 0) {
			*bad_line = no;
			return -EINVAL;
		}
	}
	if (n.short_ms > n.user_ms || n.user_ms >= n.full_ms || n.user_ms == 0)
		return -EINVAL;
	*c = n;
	return 0;
}

enum button_action button_decide(const struct button_conf *c, uint64_t held_ms)
{
	if (held_ms >= c->full_ms)
		return BUTTON_RESET_FULL;
	if (held_ms >= c->user_ms)
		return BUTTON_RESET_USER;
	if (held_ms < c->short_ms && c->short_reboot)
		return BUTTON_REBOOT;
	return BUTTON_NOTHING;
}

const char *button_action_name(enum button_action a)
{
	static const char *const names[] = {"nothing", "reboot", "reset --user", "reset --full"};
	return names[a];
}

void button_fsm_init(struct button_fsm *f, const struct button_conf *c)
{
	memset(f, 0, sizeof(*f));
	f->conf = c;
}

static void start(struct button_fsm *f, uint64_t t_ms, int64_t sleep_ms)
{
	f->held = true;
	f->since_ms = t_ms;
	f->sleep_ms = sleep_ms;
	f->level = 0;
}

enum button_action button_fsm_key(struct button_fsm *f, int value, uint64_t t_ms, int64_t sleep_ms)
{
	if (value == 1) {
		/* a second press without a release: the release was lost; measure anew */
		start(f, t_ms, sleep_ms);
		return BUTTON_NOTHING;
	}
	if (value != 0)
		return BUTTON_NOTHING; /* autorepeat says nothing new */
	if (!f->held) {
		f->ignored = "released without a press seen";
		f->held_ms = 0;
		return BUTTON_NOTHING;
	}
	f->held = false;
	f->ignored = NULL;
	f->held_ms = t_ms >= f->since_ms ? t_ms - f->since_ms : 0;
	if (t_ms < f->since_ms)
		f->ignored = "the release is older than the press";
	else if (sleep_ms - f->sleep_ms > BUTTON_SUSPEND_SLACK_MS ||
		 f->sleep_ms - sleep_ms > BUTTON_SUSPEND_SLACK_MS)
		f->ignored = "the press spanned a suspend";
	return f->ignored ? BUTTON_NOTHING : button_decide(f->conf, f->held_ms);
}

void button_fsm_resync(struct button_fsm *f, bool held, uint64_t now_ms, int64_t sleep_ms)
{
	if (held)
		start(f, now_ms, sleep_ms);
	else
		f->held = false;
}

unsigned button_fsm_level(struct button_fsm *f, uint64_t now_ms)
{
	if (!f->held || now_ms < f->since_ms)
		return 0;
	enum button_action a = button_decide(f->conf, now_ms - f->since_ms);
	unsigned level = a == BUTTON_RESET_FULL ? 2 : a == BUTTON_RESET_USER ? 1 : 0;
	if (level <= f->level)
		return 0;
	f->level = level;
	return level;
}

int button_fsm_timeout(const struct button_fsm *f, uint64_t now_ms)
{
	if (!f->held || f->level >= 2)
		return -1;
	uint64_t at = f->since_ms + (f->level ? f->conf->full_ms : f->conf->user_ms);
	return at > now_ms ? (int)(at - now_ms) : 0;
}
