/* SPDX-License-Identifier: GPL-2.0-only */
/* The reset button's input devices (evdev): what the power-on check and the daemon share. */
#ifndef STRATA_BUTTONDEV_H
#define STRATA_BUTTONDEV_H

#include "buttonfsm.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define INPUT_DIR "/dev/input"
#define MAX_DEVS 8

struct button_devs {
	unsigned n;
	struct pollfd pfd[MAX_DEVS + 1]; /* [0]: inotify (daemon only) */
	char name[MAX_DEVS][16];
	bool dropping[MAX_DEVS]; /* after SYN_DROPPED, until the next SYN_REPORT */
	uint64_t floor_ms;	 /* every queue was empty then: no event read later is older */
};

uint64_t button_clock_ms(clockid_t id);
/* grows only while the machine is suspended */
int64_t button_sleep_offset_ms(void);
/* whether a device of d reads key as held now */
bool button_any_held(const struct button_devs *d, unsigned key);
/* Opens the event devices not open yet that can send key. Returns how many were added. */
unsigned button_scan_devices(struct button_devs *d, unsigned key);
/* Tells the policy the key's state as read now, logging why. */
void button_resync(struct button_fsm *f, const struct button_devs *d, const char *why);
/* Reads device i's queued events; returns the action of a release, or -1 when it is gone. */
int button_read_events(struct button_fsm *f, struct button_devs *d, unsigned i);
/* Watches INPUT_DIR for devices (or /dev for INPUT_DIR) on inotify ino. Returns 0 or -errno. */
int button_watch_input_dir(int ino);

#endif
