/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A/B slots in the bootloader's boot counters (RAUC's scheme, bootenv.h):
 * BOOT_ORDER lists the slots to try, BOOT_<slot>_LEFT their tries. What the
 * running system reads of them and the edits it makes. Pure code over a
 * parsed environment: the caller reads and writes the bootloader's store.
 *
 * A slot is good while it has tries; a try is spent by the bootloader before
 * the slot's kernel starts, and given back by mark-good from the slot's
 * running system. An install first takes the target slot's tries away (so
 * a slot half written is never started), writes it, and only then puts it
 * first in the order with its tries: a power cut anywhere leaves the
 * booted slot first among those with tries.
 */
#ifndef STRATA_SLOTS_H
#define STRATA_SLOTS_H

#include "bootenv.h"

#include <stdbool.h>

#define SLOTS_MAX 2
#define SLOTS_TRIES_MAX 9 /* U-Boot's setexpr writes the decremented count in hex */

struct slots_view {
	char order[SLOTS_MAX + 1]; /* BOOT_ORDER's slots, as letters ("BA") */
	unsigned left[SLOTS_MAX];  /* tries left of A and of B */
	char booted;		   /* the slot running ('A', 'B'); 0: none */
	char next;		   /* the one the bootloader starts next; 0: none has tries */
	/*
	 * The slot ahead of the booted one in the order that has no tries
	 * left: it was started and never marked good (a rollback); 0: none.
	 */
	char failed;
};

/*
 * The view of env with booted ('A', 'B' or 0). Returns 0, or -EBADMSG
 * naming the variable in why[len]: a BOOT_ORDER of anything but the slots
 * A and B once each, or a count that is not a number of at most
 * SLOTS_TRIES_MAX. Unset, as the boot script starts them: "A B", and
 * `tries` each.
 */
int slots_read(const struct bootenv *env, char booted, unsigned tries, struct slots_view *v,
	       char *why, size_t len);

/* The slot running is good: its tries back (BOOT_<booted>_LEFT = tries). */
int slots_mark_good(struct bootenv *env, char booted, unsigned tries);

/* Before an install writes slot: no tries, so the bootloader never starts it half written. */
int slots_disable(struct bootenv *env, char slot);

/* After the install: slot first in the order, with tries (the others keep theirs). */
int slots_activate(struct bootenv *env, char slot, unsigned tries);

/*
 * Back to the other slot at the next boot: it goes first in the order. It
 * must be good (tries left): -ENOENT if it has none (nothing to go back to).
 */
int slots_rollback(struct bootenv *env, char booted, unsigned tries);

/* The other slot of two. */
static inline char slots_other(char slot)
{
	return slot == 'A' ? 'B' : 'A';
}

#endif
