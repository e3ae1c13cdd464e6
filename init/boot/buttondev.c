// SPDX-License-Identifier: GPL-2.0-only
/* The reset button's input devices: found by key, read, and their key state read back. */
#include "buttondev.h"
#include "input_abi.h"
#include "log.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <unistd.h>

uint64_t button_clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int64_t button_sleep_offset_ms(void)
{
	return (int64_t)(button_clock_ms(CLOCK_BOOTTIME) - button_clock_ms(CLOCK_MONOTONIC));
}

static bool key_bit(int fd, unsigned long req, unsigned key)
{
	unsigned char bits[KEY_MAX / 8 + 1] = {0};
	return ioctl(fd, req, bits) >= 0 && (bits[key / 8] >> (key % 8) & 1);
}

bool button_any_held(const struct button_devs *d, unsigned key)
{
	for (unsigned i = 1; i <= d->n; i++)
		if (key_bit(d->pfd[i].fd, EVIOCGKEY(KEY_MAX / 8 + 1), key))
			return true;
	return false;
}

unsigned button_scan_devices(struct button_devs *d, unsigned key)
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

void button_resync(struct button_fsm *f, const struct button_devs *d, const char *why)
{
	bool held = button_any_held(d, f->conf->key);
	log_notice("button: %s; key %u reads %s%s", why, f->conf->key, held ? "held" : "released",
		   held ? ": measuring the hold from now" : "");
	button_fsm_resync(f, held, button_clock_ms(CLOCK_MONOTONIC), button_sleep_offset_ms());
}

int button_read_events(struct button_fsm *f, struct button_devs *d, unsigned i)
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
				button_resync(f, d, "input events were dropped (SYN_DROPPED)");
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
				int a = button_fsm_key(f, e->value, t, button_sleep_offset_ms());
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

int button_watch_input_dir(int ino)
{
	/* /dev/input appears with the first input device; until then /dev is watched for it */
	if (inotify_add_watch(ino, INPUT_DIR, IN_CREATE | IN_ATTRIB) >= 0)
		return 0;
	return inotify_add_watch(ino, "/dev", IN_CREATE) < 0 ? -errno : 0;
}
