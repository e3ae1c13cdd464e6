/* SPDX-License-Identifier: GPL-2.0-only */
/* The reset button's policy: hold-time state machine and /etc/strata/button. Pure code. */
#ifndef STRATA_BUTTONFSM_H
#define STRATA_BUTTONFSM_H

#include <stdbool.h>
#include <stdint.h>

#define BUTTON_CONF_FILE "/etc/strata/button"
/* a press during which the clocks drifted apart this much spanned a suspend */
#define BUTTON_SUSPEND_SLACK_MS 1000

enum button_action { BUTTON_NOTHING, BUTTON_REBOOT, BUTTON_RESET_USER, BUTTON_RESET_FULL };

struct button_conf {
	unsigned key;	   /* evdev key code; 0: no button */
	unsigned short_ms; /* a release before this is a short press */
	unsigned user_ms;  /* held at least this long: reset --user */
	unsigned full_ms;  /* held at least this long: reset --full */
	bool short_reboot; /* a short press reboots (OpenWrt's habit) */
	char led[64];	   /* /sys/class/leds/<led>, at most one '*'; empty: none */
};

/* The Kconfig defaults. */
void button_conf_defaults(struct button_conf *c);
/*
 * "name value" lines, '#' comments: key CODE, led NAME, short_ms / user_ms /
 * full_ms MS, short reboot|nothing. Returns 0, or -EINVAL with *bad_line set
 * (0: the thresholds are not short_ms <= user_ms < full_ms); c is then unchanged.
 */
int button_conf_parse(struct button_conf *c, const char *text, unsigned *bad_line);

/*
 * Whether an LED's name matches the configured one, where one '*' stands for
 * any run of characters: "input*::scrolllock" is a keyboard's LED whatever
 * number the input device got.
 */
bool button_led_match(const char *pattern, const char *name);

/* What a hold of held_ms means. */
enum button_action button_decide(const struct button_conf *c, uint64_t held_ms);
const char *button_action_name(enum button_action a);

/*
 * One button, measured on the evdev event clock (CLOCK_MONOTONIC, which stops
 * in suspend and never jumps). sleep_ms is CLOCK_BOOTTIME minus
 * CLOCK_MONOTONIC when an event is handled: it grows only across a suspend.
 */
struct button_fsm {
	const struct button_conf *conf;
	bool held;	     /* a measured press is running */
	uint64_t since_ms;   /* when it started */
	int64_t sleep_ms;    /* sleep_ms then */
	unsigned level;	     /* thresholds announced: 0, 1 (user), 2 (full) */
	uint64_t held_ms;    /* the last press's duration */
	const char *ignored; /* why the last press was not acted on, or NULL */
};

void button_fsm_init(struct button_fsm *f, const struct button_conf *c);
/* A key event: value 1 press, 0 release, 2 autorepeat (ignored). Returns the action at release. */
enum button_action button_fsm_key(struct button_fsm *f, int value, uint64_t t_ms, int64_t sleep_ms);
/*
 * The event stream cannot be trusted (SYN_DROPPED, a device gone or added):
 * held is the key state read back (EVIOCGKEY); a held key is measured anew from now.
 */
void button_fsm_resync(struct button_fsm *f, bool held, uint64_t now_ms, int64_t sleep_ms);
/* The threshold newly passed at now_ms (1 user, 2 full), or 0. */
unsigned button_fsm_level(struct button_fsm *f, uint64_t now_ms);
/* Milliseconds from now_ms to the next threshold, or -1 when none is ahead. */
int button_fsm_timeout(const struct button_fsm *f, uint64_t now_ms);

#endif
