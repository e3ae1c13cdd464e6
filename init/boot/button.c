// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reset button at power-on: held then, it selects a reset before the
 * overlays are mounted. The policy is buttonfsm.c; the devices buttondev.c;
 * the daemon and the hotplug handler init/cmd/button.c.
 */
#include "buttondev.h"
#include "log.h"
#include "request.h"
#include "boot.h"
#include "util.h"

#include <poll.h>
#include <pthread.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	uint64_t start = button_clock_ms(CLOCK_MONOTONIC), deadline = start + wait_ms;
	struct pollfd p = {.fd = ino, .events = POLLIN};
	/* watched before each scan: a device that appears in between is not missed */
	while (button_watch_input_dir(ino), !button_scan_devices(d, key)) {
		uint64_t now = button_clock_ms(CLOCK_MONOTONIC);
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
			 (unsigned long long)(button_clock_ms(CLOCK_MONOTONIC) - start));
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
	if (!button_scan_devices(&d, conf.key) && CONFIG_STRATA_BUTTON_WAIT_MS)
		wait_for_button(&d, conf.key, CONFIG_STRATA_BUTTON_WAIT_MS);
	if (CONFIG_STRATA_BUTTON_WAIT_MS && d.n && !button_any_held(&d, conf.key))
		settle_young_devices(&d);
	held_ns[0] = held_ns[1] = 0;
	if (button_any_held(&d, conf.key)) {
		held_ns[0] = now_boottime_ns();
		log_notice("button held at power-on: user reset at %u s, full reset at %u s",
			   conf.user_ms / 1000, conf.full_ms / 1000);
		button_fsm_resync(&fsm, true, button_clock_ms(CLOCK_MONOTONIC), 0);
		unsigned shown = ~0u;
		for (;;) {
			uint64_t now = button_clock_ms(CLOCK_MONOTONIC), held = now - fsm.since_ms;
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
				int a = d.pfd[i].revents ? button_read_events(&fsm, &d, i)
							 : BUTTON_NOTHING;
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
