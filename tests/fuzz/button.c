// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the reset button's config file (/etc/strata/button) and the
 * hold-time state machine fed an evdev-like event stream. The input is the
 * config text, then after a NUL byte 12-byte events: type (1 byte: key,
 * resync, tick), value, 4-byte time step in ms, 4-byte suspend step, unused.
 */
/* fuzz-sources: buttonfsm.c util.c */
#include "../../init/lib/buttonfsm.h"
#include "fuzz.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct button_conf c, before;
	unsigned bad = 0;
	const uint8_t *nul = memchr(data, '\0', size);
	size_t text_len = nul ? (size_t)(nul - data) : size;
	char *text = fuzz_cstr(data, text_len);
	button_conf_defaults(&c);
	before = c;
	int r = button_conf_parse(&c, text, &bad);
	FUZZ_ASSERT(r == 0 || r == -EINVAL);
	if (r < 0)
		FUZZ_ASSERT(memcmp(&c, &before, sizeof(c)) == 0); /* a bad file changes nothing */
	FUZZ_TERMINATED(c.led);
	FUZZ_ASSERT(c.short_ms <= c.user_ms && c.user_ms < c.full_ms);
	free(text);

	struct button_fsm f;
	button_fsm_init(&f, &c);
	uint64_t t = 0;
	int64_t sleep = 0;
	for (const uint8_t *p = nul ? nul + 1 : data + size; p + 12 <= data + size; p += 12) {
		uint32_t dt, ds;
		memcpy(&dt, p + 2, 4);
		memcpy(&ds, p + 6, 4);
		t += dt % 20000;
		sleep += ds % 3000;
		enum button_action a = BUTTON_NOTHING;
		switch (p[0] % 3) {
		case 0:
			a = button_fsm_key(&f, p[1] % 4, t, sleep);
			break;
		case 1:
			button_fsm_resync(&f, p[1] & 1, t, sleep);
			break;
		default:
			FUZZ_ASSERT(button_fsm_level(&f, t) <= 2);
			FUZZ_ASSERT(button_fsm_timeout(&f, t) >= -1);
			break;
		}
		FUZZ_ASSERT(a <= BUTTON_RESET_FULL);
		/* a reset only ever follows a hold at least as long as its threshold */
		if (a == BUTTON_RESET_USER)
			FUZZ_ASSERT(f.held_ms >= c.user_ms && f.held_ms < c.full_ms);
		if (a == BUTTON_RESET_FULL)
			FUZZ_ASSERT(f.held_ms >= c.full_ms);
	}
	return 0;
}
