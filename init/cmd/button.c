// SPDX-License-Identifier: GPL-2.0-only
/*
 * strata button (the reset-button daemon) and strata button-event (OpenWrt's
 * hotplug environment). The policy is buttonfsm.c, the devices
 * init/boot/buttondev.c; a reset is reset_request() (reset.c).
 */
#include "buttondev.h"
#include "buttonfsm.h"
#include "log.h"
#include "request.h"
#include "safefs.h"
#include "cmd.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

static void drop_device(struct button_devs *d, unsigned i)
{
	close(d->pfd[i].fd);
	d->pfd[i] = d->pfd[d->n];
	memcpy(d->name[i - 1], d->name[d->n - 1], sizeof(d->name[0]));
	d->dropping[i - 1] = d->dropping[d->n - 1];
	d->n--;
}

static void load_conf(struct button_conf *c)
{
	char text[2048];
	unsigned bad;
	button_conf_defaults(c);
	/* the root's copy may come from an upper: never a FIFO the daemon would wait on */
	mode_t kind = 0;
	ssize_t n = safe_read_root_file(BUTTON_CONF_FILE, text, sizeof(text), &kind);
	if (n >= 0 && button_conf_parse(c, text, &bad) < 0)
		log_error(bad ? "button: %s line %u is invalid; using the built-in settings"
			      : "button: %s: the hold times must be short_ms <= user_ms < full_ms; "
				"using the built-in settings",
			  BUTTON_CONF_FILE, bad);
	else if (n < 0 && n != -ENOENT)
		log_error("button: cannot read %s (%s); using the built-in settings",
			  BUTTON_CONF_FILE, safe_strerror((int)n, kind, text, sizeof(text)));
}

static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/*
 * /sys/class/leds/LED of the configured LED; with a '*' in its name the first
 * matching LED in name order, looked up at each use (an input device that
 * comes back after a reset gets another number).
 */
static int led_dir(const struct button_conf *c, char *dir, size_t len)
{
	char best[sizeof(c->led)] = "";
	if (!c->led[0])
		return -ENOENT;
	if (!strchr(c->led, '*'))
		return xsnprintf(dir, len, "/sys/class/leds/%s", c->led);
	DIR *d = opendir("/sys/class/leds");
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (button_led_match(c->led, de->d_name) && strlen(de->d_name) < sizeof(best) &&
		    (!best[0] || strcmp(de->d_name, best) < 0))
			memcpy(best, de->d_name, strlen(de->d_name) + 1);
	if (d)
		closedir(d);
	return best[0] ? xsnprintf(dir, len, "/sys/class/leds/%s", best) : -ENOENT;
}

/* LED feedback: blinking once a user reset is selected, on for a full one, as before otherwise. */
static void led_show(const struct button_conf *c, unsigned level, const char *saved)
{
	char dir[96], path[128];
	if (led_dir(c, dir, sizeof(dir)) < 0 ||
	    xsnprintf(path, sizeof(path), "%s/trigger", dir) < 0)
		return;
	if (level == 0 || (level == 1 && sysfs_write(path, "timer") == 0)) {
		if (level == 0)
			sysfs_write(path, saved);
		return;
	}
	/* no timer trigger (ledtrig-timer not loaded), or full: steady on */
	sysfs_write(path, "none");
	if (xsnprintf(path, sizeof(path), "%s/brightness", dir) >= 0)
		sysfs_write(path, "255");
}

/* The LED's trigger before the button took it over: the [bracketed] one. */
static void led_saved_trigger(const struct button_conf *c, char *saved, size_t len)
{
	char dir[96], path[128], text[1024];
	snprintf(saved, len, "none");
	if (led_dir(c, dir, sizeof(dir)) < 0 ||
	    xsnprintf(path, sizeof(path), "%s/trigger", dir) < 0 ||
	    read_file(path, text, sizeof(text)) < 0) {
		if (c->led[0])
			log_warn("button: LED '%s' not found in /sys/class/leds", c->led);
		return;
	}
	char *open_b = strchr(text, '['), *close_b = open_b ? strchr(open_b, ']') : NULL;
	if (close_b && (size_t)(close_b - open_b) < len) {
		*close_b = '\0';
		memcpy(saved, open_b + 1, (size_t)(close_b - open_b));
	}
}

/* Carries out a decision of the policy; returns only when nothing (more) is to be done. */
static void act(enum button_action a)
{
	if (a == BUTTON_REBOOT) {
		log_notice("button: short press: rebooting");
		sync();
		execl("/sbin/reboot", "reboot", (char *)NULL);
		log_error("button: cannot run /sbin/reboot: %m");
	} else if (a == BUTTON_RESET_USER || a == BUTTON_RESET_FULL) {
		log_notice("button: scheduling %s, then rebooting", button_action_name(a));
		reset_request("reset", a == BUTTON_RESET_USER ? REQ_RESET_USER : REQ_RESET_FULL,
			      RESET_YES | RESET_REBOOT);
		log_error("button: %s could not be scheduled (see above)", button_action_name(a));
	}
}

static const char *const level_text[] = {"", "release now for a user reset",
					 "release now for a full reset"};

int cmd_button(int argc, char **argv)
{
	static struct button_conf conf;
	static struct button_devs d;
	struct button_fsm fsm;
	char saved_trigger[64];

	if (argc > 1)
		return cmd_usage_error(argv[0], "no arguments", "unknown argument '%s'", argv[1]);
	log_open();
	log_kmsg_only();
	load_conf(&conf);
	if (!conf.key) {
		/* idle rather than exit: init would respawn the daemon over and over */
		log_notice("button: no reset button configured (key 0)");
		for (;;)
			pause();
	}
	button_fsm_init(&fsm, &conf);
	led_saved_trigger(&conf, saved_trigger, sizeof(saved_trigger));
	int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino < 0 || button_watch_input_dir(ino) < 0)
		return log_error_errno(-errno, "button: cannot watch %s: %m", INPUT_DIR), 1;
	d.pfd[0] = (struct pollfd){.fd = ino, .events = POLLIN};
	button_scan_devices(&d, conf.key);
	log_notice("button: key %u on %u device(s); user reset at %u ms, full reset at %u ms, "
		   "short press: %s",
		   conf.key, d.n, conf.user_ms, conf.full_ms,
		   conf.short_reboot ? "reboot" : "nothing");
	/* a press that began before (held at power-on, say) is not measured: it has no start */
	if (button_any_held(&d, conf.key))
		log_notice("button: held at start: ignored until released");

	for (;;) {
		int timeout = button_fsm_timeout(&fsm, button_clock_ms(CLOCK_MONOTONIC));
		if (poll(d.pfd, d.n + 1, timeout) < 0 && errno != EINTR)
			return log_error_errno(-errno, "button: poll: %m"), 1;
		int action = BUTTON_NOTHING;
		if (d.pfd[0].revents) {
			char buf[4096];
			while (read(ino, buf, sizeof(buf)) > 0) {
			}
			button_watch_input_dir(ino);
			if (button_scan_devices(&d, conf.key))
				button_resync(&fsm, &d, "input device added");
		}
		for (unsigned i = 1; i <= d.n; i++) {
			if (!d.pfd[i].revents)
				continue;
			int a = button_read_events(&fsm, &d, i);
			if (a < 0) {
				log_notice("button: %s/%s is gone", INPUT_DIR, d.name[i - 1]);
				drop_device(&d, i--);
				button_resync(&fsm, &d, "input device removed");
			} else if (a != BUTTON_NOTHING) {
				action = a;
			}
		}
		unsigned level = button_fsm_level(&fsm, button_clock_ms(CLOCK_MONOTONIC));
		if (level) {
			unsigned s = (level == 1 ? conf.user_ms : conf.full_ms) / 1000;
			log_notice("button: held %u s: %s", s, level_text[level]);
			console_print("strata: button held %u s: %s\n", s, level_text[level]);
			led_show(&conf, level, saved_trigger);
		}
		if (!fsm.held && fsm.level) {
			led_show(&conf, 0, saved_trigger);
			fsm.level = 0;
		}
		d.floor_ms = button_clock_ms(CLOCK_MONOTONIC);
		act((enum button_action)action);
	}
}

int cmd_button_event(int argc, char **argv)
{
	static struct button_conf conf;
	const char *button = getenv("BUTTON"), *action = getenv("ACTION"), *seen = getenv("SEEN");
	(void)argc;
	(void)argv;
	if (!button || strcmp(button, "reset") != 0)
		return 0; /* another button */
	log_open();
	load_conf(&conf);
	if (!action || strcmp(action, "released") != 0) {
		log_info("button-event: %s %s", button, action ? action : "(no ACTION)");
		return 0;
	}
	char *end;
	unsigned long s = seen && *seen >= '0' && *seen <= '9' ? strtoul(seen, &end, 10) : 0;
	if (!seen || *seen < '0' || *seen > '9' || *end || s > 86400) {
		log_error("button-event: SEEN='%s' is not a number of seconds: expected 0 to 86400",
			  seen ? seen : "");
		return 2;
	}
	enum button_action a = button_decide(&conf, (uint64_t)s * 1000u);
	log_notice("button-event: reset released after %lu s: %s", s, button_action_name(a));
	act(a);
	return a == BUTTON_NOTHING ? 0 : 1;
}
