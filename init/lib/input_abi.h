/* SPDX-License-Identifier: GPL-2.0-only */
/* The evdev ABI strata uses (linux/input.h), for toolchains without kernel headers. */
#ifndef STRATA_INPUT_ABI_H
#define STRATA_INPUT_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>

/* the kernel's layout on 64-bit and on 32-bit with a 64-bit time_t alike */
struct input_event {
	unsigned long sec, usec;
	uint16_t type, code;
	int32_t value;
};

#define EV_SYN 0x00
#define EV_KEY 0x01
#define SYN_REPORT 0
#define SYN_DROPPED 3
#define KEY_MAX 0x2ff

#define EVIOCGNAME(len) _IOC(_IOC_READ, 'E', 0x06, len)
#define EVIOCGKEY(len) _IOC(_IOC_READ, 'E', 0x18, len)
#define EVIOCGBIT(ev, len) _IOC(_IOC_READ, 'E', 0x20 + (ev), len)
#define EVIOCSCLOCKID _IOW('E', 0xa0, int)

#endif
