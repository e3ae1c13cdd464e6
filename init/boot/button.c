// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reset button on evdev: "strata button" (daemon), "strata button-event"
 * (OpenWrt hotplug environment) and the init's power-on check. The policy is
 * buttonfsm.c; resets are scheduled by "strata reset" (init/cmd/reset.c).
 */
#include "buttonfsm.h"
#include "input_abi.h"
#include "log.h"
#include "request.h"
#include "safefs.h"
#include "boot.h"
#include "cmd.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define INPUT_DIR "/dev/input"
#define MAX_DEVS 8

struct button_devs {
	unsigned n;
	struct pollfd pfd[MAX_DEVS + 1]; /* [0]: inotify (daemon only) */
	char name[MAX_DEVS][16];
	bool dropping[MAX_DEVS]; /* after SYN_DROPPED, until the next SYN_REPORT */
	uint64_t floor_ms;	 /* every queue was empty then: no event read later is older */
};

static uint64_t clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* grows only while the machine is suspended */
static int64_t sleep_offset_ms(void)
{
	return (int64_t)(clock_ms(CLOCK_BOOTTIME) - clock_ms(CLOCK_MONOTONIC));
}

static bool key_bit(int fd, unsigned long req, unsigned key)
{
	unsigned char bits[KEY_MAX / 8 + 1] = {0};
	return ioctl(fd, req, bits) >= 0 && (bits[key / 8] >> (key % 8) & 1);
}

static bool any_held(const struct button_devs *d, unsigned key)
{
	for (unsigned i = 1; i <= d->n; i++)
		if (key_bit(d->pfd[i].fd, EVIOCGKEY(KEY_MAX / 8 + 1), key))
			return true;
	return false;
}

/* Opens the event devices not open yet that can send key. Returns how many were added. */
static unsigned scan_devices(struct button_devs *d, unsigned key)
{
	DIR *dir = opendir(INPUT_DIR);
	struct dirent *de;
	unsigned added = 0;
	while (dir && (de = readdir(dir)) && d->n < MAX_DEVS) {
		char path[64], devname[64] = "";
		bool known = strncmp(de->d_name, "event", 5) != 0 || strlen(de->d_name) >= 16;
		for (unsigned i = 0; i < d->n && !known; i++)
			known = strcmp(d->name[i], de->d_name) == 0;
		if (known || xsnprintf(path, sizeof(path), INPUT_DIR "/%s", de->d_name) < 0)
			continue;
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), clk = CLOCK_MONOTONIC;
		if (fd < 0)
			continue;
		/* event times on CLOCK_MONOTONIC: no jumps, no suspend time */
		if (!key_bit(fd, EVIOCGBIT(EV_KEY, KEY_MAX / 8 + 1), key) ||
		    ioctl(fd, EVIOCSCLOCKID, &clk) < 0) {
			close(fd);
			continue;
		}
		/* what was queued before the clock was set is stale: the key state is read instead
		 */
		struct input_event stale[16];
		while (read(fd, stale, sizeof(stale)) > 0) {
		}
		ioctl(fd, EVIOCGNAME(sizeof(devname) - 1), devname);
		d->n++;
		d->pfd[d->n] = (struct pollfd){.fd = fd, .events = POLLIN};
		d->dropping[d->n - 1] = false;
		memcpy(d->name[d->n - 1], de->d_name, strlen(de->d_name) + 1);
		log_info("button: watching %s (%s) for key %u", path, devname, key);
		added++;
	}
	if (dir)
		closedir(dir);
	return added;
}

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
		char *argv[] = {"reset", a == BUTTON_RESET_USER ? "--user" : "--full", "-y", "-r",
				NULL};
		log_notice("button: scheduling %s, then rebooting", button_action_name(a));
		cmd_reset(4, argv);
		log_error("button: %s could not be scheduled (see above)", button_action_name(a));
	}
}

static const char *const level_text[] = {"", "release now for a user reset",
					 "release now for a full reset"};

static void resync(struct button_fsm *f, const struct button_devs *d, const char *why)
{
	bool held = any_held(d, f->conf->key);
	log_notice("button: %s; key %u reads %s%s", why, f->conf->key, held ? "held" : "released",
		   held ? ": measuring the hold from now" : "");
	button_fsm_resync(f, held, clock_ms(CLOCK_MONOTONIC), sleep_offset_ms());
}

/* Reads one device's queued events; returns the action of a release, or -1 when it is gone. */
static int read_events(struct button_fsm *f, struct button_devs *d, unsigned i)
{
	struct input_event ev[64];
	int action = BUTTON_NOTHING;
	for (;;) {
		ssize_t n = read(d->pfd[i].fd, ev, sizeof(ev));
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? action : -1;
		for (size_t k = 0; k < (size_t)n / sizeof(ev[0]); k++) {
			const struct input_event *e = &ev[k];
			if (e->type == EV_SYN && e->code == SYN_DROPPED) {
				/* read the state back now (the next SYN_REPORT may be far off);
				 * the stream resumes after that SYN_REPORT */
				d->dropping[i - 1] = true;
				resync(f, d, "input events were dropped (SYN_DROPPED)");
			} else if (d->dropping[i - 1]) {
				d->dropping[i - 1] = !(e->type == EV_SYN && e->code == SYN_REPORT);
			} else if (e->type == EV_KEY && e->code == f->conf->key && e->value != 2) {
				uint64_t t = (uint64_t)e->sec * 1000u + (uint64_t)e->usec / 1000u;
				/*
				 * A stamp can be stale: input-leds injects LED changes without
				 * a SYN_REPORT, and the device keeps the first one's time
				 * until its next packet. Never older than the last empty queue.
				 */
				t = t < d->floor_ms ? d->floor_ms : t;
				int a = button_fsm_key(f, e->value, t, sleep_offset_ms());
				if (e->value == 1) {
					log_info("button: pressed");
				} else if (f->ignored) {
					log_warn("button: released after %llu ms, ignored: %s",
						 (unsigned long long)f->held_ms, f->ignored);
				} else {
					log_notice("button: released after %llu ms: %s",
						   (unsigned long long)f->held_ms,
						   button_action_name((enum button_action)a));
					if (a != BUTTON_NOTHING)
						console_print(
						    "strata: button released after %llu ms: %s\n",
						    (unsigned long long)f->held_ms,
						    button_action_name((enum button_action)a));
					action = a;
				}
			}
		}
	}
}

static int watch_input_dir(int ino)
{
	/* /dev/input appears with the first input device; until then /dev is watched for it */
	if (inotify_add_watch(ino, INPUT_DIR, IN_CREATE | IN_ATTRIB) >= 0)
		return 0;
	return inotify_add_watch(ino, "/dev", IN_CREATE) < 0 ? -errno : 0;
}

int cmd_button(int argc, char **argv)
{
	static struct button_conf conf;
	static struct button_devs d;
	struct button_fsm fsm;
	char saved_trigger[64];
	(void)argv;

	if (argc > 1) {
		fputs("usage: strata button   (policy: README, " BUTTON_CONF_FILE ")\n", stderr);
		return 2;
	}
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
	if (ino < 0 || watch_input_dir(ino) < 0)
		return log_error_errno(-errno, "button: cannot watch %s: %m", INPUT_DIR), 1;
	d.pfd[0] = (struct pollfd){.fd = ino, .events = POLLIN};
	scan_devices(&d, conf.key);
	log_notice("button: key %u on %u device(s); user reset at %u ms, full reset at %u ms, "
		   "short press: %s",
		   conf.key, d.n, conf.user_ms, conf.full_ms,
		   conf.short_reboot ? "reboot" : "nothing");
	/* a press that began before (held at power-on, say) is not measured: it has no start */
	if (any_held(&d, conf.key))
		log_notice("button: held at start: ignored until released");

	for (;;) {
		int timeout = button_fsm_timeout(&fsm, clock_ms(CLOCK_MONOTONIC));
		if (poll(d.pfd, d.n + 1, timeout) < 0 && errno != EINTR)
			return log_error_errno(-errno, "button: poll: %m"), 1;
		int action = BUTTON_NOTHING;
		if (d.pfd[0].revents) {
			char buf[4096];
			while (read(ino, buf, sizeof(buf)) > 0) {
			}
			watch_input_dir(ino);
			if (scan_devices(&d, conf.key))
				resync(&fsm, &d, "input device added");
		}
		for (unsigned i = 1; i <= d.n; i++) {
			if (!d.pfd[i].revents)
				continue;
			int a = read_events(&fsm, &d, i);
			if (a < 0) {
				log_notice("button: %s/%s is gone", INPUT_DIR, d.name[i - 1]);
				drop_device(&d, i--);
				resync(&fsm, &d, "input device removed");
			} else if (a != BUTTON_NOTHING) {
				action = a;
			}
		}
		unsigned level = button_fsm_level(&fsm, clock_ms(CLOCK_MONOTONIC));
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
		d.floor_ms = clock_ms(CLOCK_MONOTONIC);
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
		log_error("button-event: SEEN='%s' is not a number of seconds", seen ? seen : "");
		return 2;
	}
	enum button_action a = button_decide(&conf, (uint64_t)s * 1000u);
	log_notice("button-event: reset released after %lu s: %s", s, button_action_name(a));
	act(a);
	return a == BUTTON_NOTHING ? 0 : 1;
}

/*
 * Closing an event device waits for two RCU grace periods (evdev_release,
 * input_close_device): 20 ms each on a busy 2-CPU board. The boot goes on
 * meanwhile; the exec waits for this thread if it has not finished.
 */
static void *close_devices(void *arg)
{
	struct button_devs *d = arg;
	for (unsigned i = 1; i <= d->n; i++)
		close(d->pfd[i].fd);
	return NULL;
}

/*
 * A button whose driver binds after the init started is waited for, up to
 * wait_ms, when no device with the key is there yet.
 */
static void wait_for_button(struct button_devs *d, unsigned key, unsigned wait_ms)
{
	int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino < 0)
		return;
	uint64_t start = clock_ms(CLOCK_MONOTONIC), deadline = start + wait_ms;
	struct pollfd p = {.fd = ino, .events = POLLIN};
	/* watched before each scan: a device that appears in between is not missed */
	while (watch_input_dir(ino), !scan_devices(d, key)) {
		uint64_t now = clock_ms(CLOCK_MONOTONIC);
		if (now >= deadline)
			break;
		if (poll(&p, 1, (int)(deadline - now)) > 0) {
			char buf[1024];
			while (read(ino, buf, sizeof(buf)) > 0) {
			}
		}
	}
	close(ino);
	if (!d->n)
		log_warn("button: no input device with key %u after %u ms; not checked at power-on",
			 key, wait_ms);
	else
		log_info("button: its device appeared after %llu ms",
			 (unsigned long long)(clock_ms(CLOCK_MONOTONIC) - start));
}

/*
 * A keyboard tells of a held key only by its next make code (its typematic
 * repeat): a device younger than BUTTON_SETTLE_MS may not have reported yet,
 * so its first report is awaited until it is that old. devtmpfs stamps the
 * node when the kernel registers the device.
 */
#define BUTTON_SETTLE_MS 300

static void settle_young_devices(struct button_devs *d)
{
	struct timespec now;
	int64_t youngest = BUTTON_SETTLE_MS;
	clock_gettime(CLOCK_REALTIME, &now);
	for (unsigned i = 1; i <= d->n; i++) {
		struct stat st;
		if (fstat(d->pfd[i].fd, &st) < 0)
			continue;
		int64_t age = (int64_t)(now.tv_sec - st.st_ctim.tv_sec) * 1000 +
			      (now.tv_nsec - st.st_ctim.tv_nsec) / 1000000;
		if (age >= 0 && age < youngest)
			youngest = age;
	}
	if (youngest < BUTTON_SETTLE_MS) {
		log_info("button: device registered %lld ms ago; awaiting its first report",
			 (long long)youngest);
		poll(d->pfd + 1, d->n, (int)(BUTTON_SETTLE_MS - youngest));
	}
}

int button_at_boot(uint64_t held_ns[2])
{
	static struct button_conf conf;
	static struct button_devs d;
	struct button_fsm fsm;
	int result = REQ_NONE;

	if (!CONFIG_STRATA_BUTTON_AT_BOOT || !CONFIG_STRATA_BUTTON_KEY)
		return REQ_NONE;
	button_conf_defaults(&conf);
	button_fsm_init(&fsm, &conf);
	if (!scan_devices(&d, conf.key) && CONFIG_STRATA_BUTTON_WAIT_MS)
		wait_for_button(&d, conf.key, CONFIG_STRATA_BUTTON_WAIT_MS);
	if (CONFIG_STRATA_BUTTON_WAIT_MS && d.n && !any_held(&d, conf.key))
		settle_young_devices(&d);
	held_ns[0] = held_ns[1] = 0;
	if (any_held(&d, conf.key)) {
		held_ns[0] = now_boottime_ns();
		log_notice("button held at power-on: user reset at %u s, full reset at %u s",
			   conf.user_ms / 1000, conf.full_ms / 1000);
		button_fsm_resync(&fsm, true, clock_ms(CLOCK_MONOTONIC), 0);
		unsigned shown = ~0u;
		for (;;) {
			uint64_t now = clock_ms(CLOCK_MONOTONIC), held = now - fsm.since_ms;
			unsigned level = button_fsm_level(&fsm, now);
			if (level == 2 || !fsm.held) {
				result = level == 2 ? REQ_RESET_FULL : result;
				break;
			}
			if (held / 1000 != shown) {
				shown = (unsigned)(held / 1000);
				console_print(
				    "strata: reset button held %u s: %s at %u s; release %s\n",
				    shown, fsm.level ? "full reset" : "user reset",
				    (fsm.level ? conf.full_ms : conf.user_ms) / 1000,
				    fsm.level ? "now for a user reset" : "now to boot normally");
			}
			poll(d.pfd + 1, d.n, (int)(1000 - held % 1000));
			for (unsigned i = 1; i <= d.n; i++) {
				int a =
				    d.pfd[i].revents ? read_events(&fsm, &d, i) : BUTTON_NOTHING;
				if (a == BUTTON_RESET_USER || a == BUTTON_RESET_FULL)
					result = a == BUTTON_RESET_USER ? REQ_RESET_USER
									: REQ_RESET_FULL;
				else if (a < 0)
					button_fsm_resync(&fsm, false, now, 0);
			}
		}
		log_notice("button at power-on: %s%s",
			   result == REQ_NONE ? "booting normally" : request_kind_name(result),
			   fsm.held ? "; release the button now" : "");
		held_ns[1] = now_boottime_ns();
	}
	pthread_t closer;
	if (d.n && thread_start(&closer, 16 * 1024, close_devices, &d))
		pthread_detach(closer);
	else
		close_devices(&d);
	return result;
}
