// SPDX-License-Identifier: GPL-2.0-only
/* A/B slots over the boot counters: the view, mark-good, install and rollback edits. */
#define UNIT_NAME "slots"
#include "unit.h"
#include "../../init/lib/slots.h"

#include <errno.h>

static struct bootenv env;
static char why[128];

static void env_with(const char *order, const char *a, const char *b)
{
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, 0x4000) == 0);
	if (order)
		CHECK(bootenv_set(&env, "BOOT_ORDER", order) == 0);
	if (a)
		CHECK(bootenv_set(&env, "BOOT_A_LEFT", a) == 0);
	if (b)
		CHECK(bootenv_set(&env, "BOOT_B_LEFT", b) == 0);
}

static void unset_counters_are_the_scripts_defaults(void)
{
	struct slots_view v;
	env_with(NULL, NULL, NULL);
	CHECK(slots_read(&env, 'A', 3, &v, why, sizeof(why)) == 0);
	CHECK_STR(v.order, "AB");
	CHECK(v.left[0] == 3 && v.left[1] == 3 && v.next == 'A' && v.failed == 0);
}

static void a_slot_out_of_tries_ahead_of_the_booted_one_failed(void)
{
	struct slots_view v;
	/* B was installed and put first; its 3 tries were spent, A booted again */
	env_with("B A", "2", "0");
	CHECK(slots_read(&env, 'A', 3, &v, why, sizeof(why)) == 0);
	CHECK(v.failed == 'B' && v.next == 'A' && v.booted == 'A');
	/* B booted first in the order: nothing failed, even with A out of tries */
	env_with("B A", "0", "2");
	CHECK(slots_read(&env, 'B', 3, &v, why, sizeof(why)) == 0);
	CHECK(v.failed == 0 && v.next == 'B');
	/* none has tries: the bootloader starts them again (next 0 says so) */
	env_with("A B", "0", "0");
	CHECK(slots_read(&env, 0, 3, &v, why, sizeof(why)) == 0);
	CHECK(v.next == 0 && v.failed == 0);
}

static void malformed_counters_are_named(void)
{
	struct slots_view v;
	const char *orders[] = {"", "A A", "A B C", "C", "AB", "a b"};
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		env_with(orders[i], "3", "3");
		int r = slots_read(&env, 'A', 3, &v, why, sizeof(why));
		/* "" unsets in U-Boot: the default order */
		CHECK(orders[i][0] ? r == -EBADMSG && strstr(why, "BOOT_ORDER=") : r == 0);
	}
	const char *counts[] = {"10", "a", "-1", "f", " 3"};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		env_with("A B", "3", counts[i]);
		CHECK(slots_read(&env, 'A', 3, &v, why, sizeof(why)) == -EBADMSG);
		CHECK(strstr(why, "BOOT_B_LEFT=") != NULL);
	}
}

static void install_disables_then_activates(void)
{
	struct slots_view v;
	env_with("A B", "3", "3");
	CHECK(slots_disable(&env, 'B') == 0);
	CHECK(slots_read(&env, 'A', 3, &v, why, sizeof(why)) == 0);
	CHECK(v.left[1] == 0 && v.next == 'A');
	CHECK(slots_activate(&env, 'B', 3) == 0);
	CHECK(slots_read(&env, 'A', 3, &v, why, sizeof(why)) == 0);
	CHECK_STR(v.order, "BA");
	CHECK(v.next == 'B' && v.left[1] == 3 && v.left[0] == 3);
	CHECK(slots_activate(&env, 'B', 10) == -EINVAL && slots_activate(&env, 'C', 3) == -EINVAL);
	CHECK(slots_disable(&env, 0) == -EINVAL);
}

/* the edits through the boot script's own decrement (bootenv_rauc_pick) */
static void a_new_slot_that_never_marks_good_rolls_back(void)
{
	struct slots_view v;
	char slot[4];
	env_with("A B", "3", "3");
	CHECK(slots_disable(&env, 'B') == 0 && slots_activate(&env, 'B', 3) == 0);
	for (int boot = 0; boot < 3; boot++) {
		CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == 0);
		CHECK_STR(slot, "B");
	}
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == 0);
	CHECK_STR(slot, "A");
	CHECK(slots_read(&env, 'A', 3, &v, why, sizeof(why)) == 0);
	CHECK(v.failed == 'B');
	/* A marks itself good: its tries back, B stays failed */
	CHECK(slots_mark_good(&env, 'A', 3) == 0);
	CHECK(slots_read(&env, 'A', 3, &v, why, sizeof(why)) == 0);
	CHECK(v.left[0] == 3 && v.failed == 'B');
	/* no rollback to a failed slot */
	CHECK(slots_rollback(&env, 'A', 3) == -ENOENT);
}

static void rollback_puts_the_other_good_slot_first(void)
{
	struct slots_view v;
	env_with("B A", "3", "2");
	CHECK(slots_mark_good(&env, 'B', 3) == 0);
	CHECK(slots_rollback(&env, 'B', 3) == 0);
	CHECK(slots_read(&env, 'B', 3, &v, why, sizeof(why)) == 0);
	CHECK_STR(v.order, "AB");
	CHECK(v.next == 'A' && v.left[1] == 3);
	CHECK(slots_mark_good(&env, 'B', 0) == -EINVAL && slots_mark_good(&env, 0, 3) == -EINVAL);
}

int main(void)
{
	RUN(unset_counters_are_the_scripts_defaults);
	RUN(a_slot_out_of_tries_ahead_of_the_booted_one_failed);
	RUN(malformed_counters_are_named);
	RUN(install_disables_then_activates);
	RUN(a_new_slot_that_never_marks_good_rolls_back);
	RUN(rollback_puts_the_other_good_slot_first);
	return UNIT_EXIT();
}
