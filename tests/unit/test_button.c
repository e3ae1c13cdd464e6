// SPDX-License-Identifier: GPL-2.0-only
/* The reset button's hold-time state machine, fed with synthetic event streams, and its config. */
#define UNIT_NAME "button"
#include "unit.h"
#include "../../init/lib/buttonfsm.h"

#include <errno.h>

static struct button_conf conf;

/* One event as the daemon hands it over: value, event time, boottime-monotonic offset. */
struct ev {
	int value;
	uint64_t t;
	int64_t sleep;
};

static enum button_action feed(struct button_fsm *f, const struct ev *evs, size_t n)
{
	enum button_action a = BUTTON_NOTHING;
	for (size_t i = 0; i < n; i++)
		a = button_fsm_key(f, evs[i].value, evs[i].t, evs[i].sleep);
	return a;
}

static enum button_action hold(uint64_t ms)
{
	struct button_fsm f;
	button_fsm_init(&f, &conf);
	const struct ev evs[] = {{1, 1000, 0}, {0, 1000 + ms, 0}};
	return feed(&f, evs, 2);
}

static void thresholds(void)
{
	button_conf_defaults(&conf);
	CHECK(hold(80) == BUTTON_NOTHING);
	CHECK(hold(999) == BUTTON_NOTHING);
	CHECK(hold(4500) == BUTTON_NOTHING); /* 4.5 s must never reset */
	CHECK(hold(4999) == BUTTON_NOTHING);
	CHECK(hold(5000) == BUTTON_RESET_USER);
	CHECK(hold(5300) == BUTTON_RESET_USER);
	CHECK(hold(9999) == BUTTON_RESET_USER);
	CHECK(hold(10000) == BUTTON_RESET_FULL);
	CHECK(hold(60000) == BUTTON_RESET_FULL);
	conf.short_reboot = true;
	CHECK(hold(200) == BUTTON_REBOOT);
	CHECK(hold(1000) == BUTTON_NOTHING);
	CHECK(hold(4500) == BUTTON_NOTHING);
	CHECK_STR(button_action_name(BUTTON_RESET_FULL), "reset --full");
}

static void autorepeat_changes_nothing(void)
{
	struct button_fsm f;
	button_conf_defaults(&conf);
	button_fsm_init(&f, &conf);
	struct ev evs[200];
	size_t n = 0;
	evs[n++] = (struct ev){1, 100, 0};
	for (uint64_t t = 350; t < 4600; t += 33)
		evs[n++] = (struct ev){2, t, 0};
	evs[n++] = (struct ev){0, 4600, 0};
	CHECK(feed(&f, evs, n) == BUTTON_NOTHING);
	CHECK(f.held_ms == 4500 && f.ignored == NULL);
	/* a repeat alone (its press unseen) starts nothing */
	const struct ev lone[] = {{2, 100, 0}, {2, 7000, 0}, {0, 7100, 0}};
	CHECK(feed(&f, lone, 3) == BUTTON_NOTHING);
	CHECK(f.ignored != NULL);
}

static void threshold_announcements_and_timeouts(void)
{
	struct button_fsm f;
	button_conf_defaults(&conf);
	button_fsm_init(&f, &conf);
	CHECK(button_fsm_timeout(&f, 0) == -1);
	CHECK(button_fsm_level(&f, 99999) == 0);
	button_fsm_key(&f, 1, 1000, 0);
	CHECK(button_fsm_timeout(&f, 1000) == 5000);
	CHECK(button_fsm_timeout(&f, 3500) == 2500);
	CHECK(button_fsm_level(&f, 5999) == 0);
	CHECK(button_fsm_level(&f, 6000) == 1);
	CHECK(button_fsm_level(&f, 6500) == 0); /* announced once */
	CHECK(button_fsm_timeout(&f, 6500) == 4500);
	CHECK(button_fsm_timeout(&f, 12000) == 0); /* late wakeup: due now */
	CHECK(button_fsm_level(&f, 12000) == 2);
	CHECK(button_fsm_timeout(&f, 12000) == -1);
	CHECK(button_fsm_key(&f, 0, 13000, 0) == BUTTON_RESET_FULL);
	CHECK(button_fsm_level(&f, 14000) == 0);
	/* a late wakeup jumps straight to full */
	button_fsm_key(&f, 1, 0, 0);
	CHECK(button_fsm_level(&f, 10500) == 2);
}

static void decision_uses_event_times_not_wakeups(void)
{
	/* the daemon woke late (slow emulator): the release's timestamp decides */
	struct button_fsm f;
	button_conf_defaults(&conf);
	button_fsm_init(&f, &conf);
	button_fsm_key(&f, 1, 2000, 0);
	CHECK(button_fsm_level(&f, 7200) == 1); /* wakeup after the release happened */
	CHECK(button_fsm_key(&f, 0, 6500, 0) == BUTTON_NOTHING);
	CHECK(f.held_ms == 4500);
}

static void syn_dropped_restarts_the_measurement(void)
{
	struct button_fsm f;
	button_conf_defaults(&conf);
	button_fsm_init(&f, &conf);
	/* pressed at 0; events dropped; the key reads back held at 3000 */
	button_fsm_key(&f, 1, 0, 0);
	button_fsm_resync(&f, true, 3000, 0);
	CHECK(button_fsm_key(&f, 0, 7000, 0) == BUTTON_NOTHING); /* 4 s since the resync */
	CHECK(f.held_ms == 4000);
	/* dropped events hid a release and a press: measure from the resync */
	button_fsm_key(&f, 1, 10000, 0);
	button_fsm_resync(&f, true, 14000, 0);
	CHECK(button_fsm_key(&f, 0, 19500, 0) == BUTTON_RESET_USER);
	/* dropped events hid the release: nothing is held, a lone release does nothing */
	button_fsm_key(&f, 1, 20000, 0);
	button_fsm_resync(&f, false, 27000, 0);
	CHECK(button_fsm_key(&f, 0, 31000, 0) == BUTTON_NOTHING);
	CHECK(!f.held && f.ignored != NULL);
}

static void device_gone_and_back(void)
{
	struct button_fsm f;
	button_conf_defaults(&conf);
	button_fsm_init(&f, &conf);
	button_fsm_key(&f, 1, 0, 0);
	button_fsm_resync(&f, false, 2000, 0); /* unplugged: no device reports it held */
	CHECK(button_fsm_level(&f, 11000) == 0 && button_fsm_timeout(&f, 11000) == -1);
	button_fsm_resync(&f, true, 12000, 0); /* back, still held: from now */
	CHECK(button_fsm_key(&f, 0, 13000, 0) == BUTTON_NOTHING);
	CHECK(f.held_ms == 1000);
}

static void suspend_and_clock_anomalies(void)
{
	struct button_fsm f;
	button_conf_defaults(&conf);
	button_fsm_init(&f, &conf);
	/* 6 s on the event clock, but the machine slept an hour in between */
	button_fsm_key(&f, 1, 1000, 5);
	CHECK(button_fsm_key(&f, 0, 7000, 3600005) == BUTTON_NOTHING);
	CHECK(f.ignored != NULL && f.held_ms == 6000);
	/* a little drift between the clocks is no suspend */
	button_fsm_key(&f, 1, 1000, 5);
	CHECK(button_fsm_key(&f, 0, 7000, 900) == BUTTON_RESET_USER);
	/* a release stamped before its press */
	button_fsm_key(&f, 1, 9000, 0);
	CHECK(button_fsm_key(&f, 0, 3000, 0) == BUTTON_NOTHING);
	CHECK(f.ignored != NULL);
	/* a second press without a release: the newer one counts */
	button_fsm_key(&f, 1, 0, 0);
	button_fsm_key(&f, 1, 8000, 0);
	CHECK(button_fsm_key(&f, 0, 11000, 0) == BUTTON_NOTHING);
}

static void config_file(void)
{
	struct button_conf c;
	unsigned bad;
	button_conf_defaults(&c);
	CHECK(c.key == 88 && c.user_ms == 5000 && c.full_ms == 10000 && !c.short_reboot);
	CHECK_STR(c.led, "input*::scrolllock");
	CHECK(button_conf_parse(&c,
				"# thresholds\n user_ms 3000 \nfull_ms\t8000 # longer\n\n"
				"short reboot\nkey 408\nled green:status\r\n",
				&bad) == 0);
	CHECK(c.user_ms == 3000 && c.full_ms == 8000 && c.short_reboot && c.key == 408);
	CHECK_STR(c.led, "green:status");
	CHECK(button_conf_parse(&c, "short nothing", &bad) == 0 && !c.short_reboot);
	CHECK(button_conf_parse(&c, "", &bad) == 0 && c.user_ms == 3000);

	struct button_conf before = c;
	const char *bad_texts[] = {"user_ms 5000\nbogus 1\n",
				   "user_ms 5000\nuser_ms\n",
				   "user_ms -5\n",
				   "user_ms 5s\n",
				   "short sometimes\n",
				   "led ../x\n",
				   "key 99999\n",
				   "user_ms 99999999999999999999\n",
				   "led *::*\n",
				   "led .\n"};
	for (size_t i = 0; i < sizeof(bad_texts) / sizeof(bad_texts[0]); i++) {
		CHECK(button_conf_parse(&c, bad_texts[i], &bad) == -EINVAL);
		CHECK(bad == (i < 2 ? 2u : 1u));
	}
	/* thresholds out of order */
	CHECK(button_conf_parse(&c, "user_ms 9000\nfull_ms 9000\n", &bad) == -EINVAL && bad == 0);
	CHECK(button_conf_parse(&c, "short_ms 4000\nuser_ms 3000\n", &bad) == -EINVAL);
	char longline[300];
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	CHECK(button_conf_parse(&c, longline, &bad) == -EINVAL && bad == 1);
	CHECK(memcmp(&c, &before, sizeof(c)) == 0); /* a bad file changes nothing */
}

static void led_names(void)
{
	CHECK(button_led_match("green:status", "green:status"));
	CHECK(!button_led_match("green:status", "green:statusx"));
	CHECK(button_led_match("input*::scrolllock", "input0::scrolllock"));
	CHECK(button_led_match("input*::scrolllock", "input12::scrolllock"));
	CHECK(button_led_match("input*::scrolllock", "input::scrolllock"));
	CHECK(!button_led_match("input*::scrolllock", "input0::capslock"));
	CHECK(!button_led_match("input*::scrolllock", "input0::scrolllockx"));
	/* prefix and suffix may not share characters */
	CHECK(!button_led_match("ab*ba", "aba"));
	CHECK(button_led_match("*", "anything"));
	CHECK(button_led_match("*:status", "green:status"));
	CHECK(button_led_match("green:*", "green:"));
}

int main(void)
{
	RUN(led_names);
	RUN(thresholds);
	RUN(autorepeat_changes_nothing);
	RUN(threshold_announcements_and_timeouts);
	RUN(decision_uses_event_times_not_wakeups);
	RUN(syn_dropped_restarts_the_measurement);
	RUN(device_gone_and_back);
	RUN(suspend_and_clock_anomalies);
	RUN(config_file);
	return UNIT_EXIT();
}
