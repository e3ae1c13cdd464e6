// SPDX-License-Identifier: GPL-2.0-only
/* Kernel command line parsing. */
#define UNIT_NAME "opts"
#include "unit.h"
#include "../../init/lib/opts.h"

#include <errno.h>

static char reported[1024];

static void report(void *arg, const char *key, const char *why)
{
	(*(int *)arg)++;
	size_t n = strlen(reported);
	snprintf(reported + n, sizeof(reported) - n, "[%s %s]", key, why);
}

static void defaults_come_from_config(void)
{
	struct strata_opts o;
	opts_defaults(&o);
	CHECK_STR(o.init, "/sbin/init");
	CHECK_STR(o.root_part, "rootfs");
	CHECK_STR(o.data_part, "rootfs_data");
	CHECK(o.fatal == FATAL_SHELL);
	CHECK(o.degraded == DEGRADED_TMPFS);
	CHECK(o.rootwait_ms == 5000);
	CHECK(!o.debug);
	CHECK(o.stack_levels == 2);
}

static void stacks_deeper_than_the_kernel_allows_are_refused(void)
{
	unsigned levels = 7;
	bool collapsed = true;
	CHECK(stack_parse("system", &levels, &collapsed) == NULL && levels == 1 && !collapsed);
	CHECK(stack_parse("system user", &levels, &collapsed) == NULL && levels == 2);
	CHECK(stack_parse(" system,,user ", &levels, &collapsed) == NULL && levels == 2);
	CHECK(!collapsed);
	/* '+' joins the two layers into one overlay */
	CHECK(stack_parse("system+user", &levels, &collapsed) == NULL && levels == 2 && collapsed);
	CHECK(stack_parse("system", &levels, &collapsed) == NULL && !collapsed);
	levels = 7;
	CHECK(strstr(stack_parse("system+user,user", &levels, &collapsed), "more than 2"));
	CHECK(strstr(stack_parse("system+", &levels, &collapsed), "only as \"system+user\""));
	CHECK(strstr(stack_parse("+system", &levels, &collapsed), "only as"));
	CHECK(strstr(stack_parse("system++user", &levels, &collapsed), "only as"));
	CHECK(strstr(stack_parse("system+user ", &levels, &collapsed), "only as"));
	CHECK(strstr(stack_parse("user+system", &levels, &collapsed), "must start"));
	CHECK(levels == 7 && !collapsed);
	const char *why = stack_parse("system,vendor,user", &levels, &collapsed);
	CHECK(why && strstr(why, "more than 2 overlay levels") &&
	      strstr(why, "FILESYSTEM_MAX_STACK_DEPTH"));
	CHECK(levels == 7);
	/* depth is the reason even when the names are wrong too */
	CHECK(strstr(stack_parse("a b c", &levels, &collapsed), "more than 2") != NULL);
	CHECK(strstr(stack_parse("user", &levels, &collapsed), "must start with \"system\"") !=
	      NULL);
	CHECK(strstr(stack_parse("system,vendor", &levels, &collapsed), "only add \"user\"") !=
	      NULL);
	CHECK(strstr(stack_parse("systemd", &levels, &collapsed), "must start") != NULL);
	CHECK(strstr(stack_parse(" , ", &levels, &collapsed), "no overlay level") != NULL);
	CHECK(strstr(stack_parse("", &levels, &collapsed), "no overlay level") != NULL);
	CHECK(levels == 7);

	struct strata_opts o;
	int n = 0;
	reported[0] = '\0';
	opts_defaults(&o);
	CHECK(opts_parse_cmdline(&o, "strata.stack=system,user,extra", report, &n) == 1);
	CHECK(o.stack_levels == 2);
	CHECK(strstr(reported, "[strata.stack names more than 2 overlay levels") != NULL);
	CHECK(opts_parse_cmdline(&o, "strata.stack=system", report, &n) == 0);
	CHECK(o.stack_levels == 1);
	CHECK(opts_parse_cmdline(&o, "strata.stack=system+user", report, &n) == 0);
	CHECK(o.stack_levels == 2 && o.stack_collapsed);
}

static void valid_keys_apply(void)
{
	struct strata_opts o;
	int n = 0;
	opts_defaults(&o);
	int r = opts_parse_cmdline(&o,
				   "BOOT_IMAGE=/vmlinuz console=ttyS0 strata.init=/bin/sh "
				   "strata.root=ubi_rootfs strata.data=data strata.fatal=reboot "
				   "strata.degraded=emergency strata.rootwait=250 strata.debug\n",
				   report, &n);
	CHECK(r == 0 && n == 0);
	CHECK_STR(o.init, "/bin/sh");
	CHECK_STR(o.root_part, "ubi_rootfs");
	CHECK_STR(o.data_part, "data");
	CHECK(o.fatal == FATAL_REBOOT);
	CHECK(o.degraded == DEGRADED_EMERGENCY);
	CHECK(o.rootwait_ms == 250);
	CHECK(o.debug);
}

static void bad_values_are_named_and_ignored(void)
{
	struct strata_opts o;
	int n = 0;
	reported[0] = '\0';
	opts_defaults(&o);
	int r =
	    opts_parse_cmdline(&o,
			       "strata.init=sbin/init strata.fatal=explode strata.rootwait=-1 "
			       "strata.rootwait=99999999 strata.root strata.data=a/b strata.x=1 "
			       "strata.debug=perhaps",
			       report, &n);
	CHECK(r == 8 && n == 8);
	CHECK_STR(o.init, "/sbin/init");
	CHECK(o.fatal == FATAL_SHELL);
	CHECK(o.rootwait_ms == 5000);
	CHECK_STR(o.data_part, "rootfs_data");
	CHECK(strstr(reported, "[strata.init must be an absolute path]") != NULL);
	CHECK(strstr(reported, "[strata.x is not a known key]") != NULL);
	CHECK(strstr(reported, "[strata.root needs a value]") != NULL);
}

static void quotes_group_words(void)
{
	const char *c = "a=\"x y\" \"b=1 2\" plain   ";
	char k[32], v[32];
	bool hv;
	CHECK(cmdline_next(&c, k, sizeof(k), v, sizeof(v), &hv) == 1);
	CHECK_STR(k, "a");
	CHECK_STR(v, "x y");
	CHECK(cmdline_next(&c, k, sizeof(k), v, sizeof(v), &hv) == 1);
	CHECK_STR(k, "b");
	CHECK_STR(v, "1 2");
	CHECK(cmdline_next(&c, k, sizeof(k), v, sizeof(v), &hv) == 1);
	CHECK_STR(k, "plain");
	CHECK(!hv);
	CHECK(cmdline_next(&c, k, sizeof(k), v, sizeof(v), &hv) == 0);
}

static void oversized_words_are_skipped(void)
{
	char longval[600];
	memset(longval, 'x', sizeof(longval) - 1);
	longval[sizeof(longval) - 1] = '\0';
	char line[700];
	snprintf(line, sizeof(line), "strata.init=/%s strata.root=ok", longval);
	struct strata_opts o;
	int n = 0;
	opts_defaults(&o);
	CHECK(opts_parse_cmdline(&o, line, report, &n) == 1);
	CHECK_STR(o.init, "/sbin/init");
	CHECK_STR(o.root_part, "ok");
}

static void module_params_like_modprobe(void)
{
	char out[128] = "base=1";
	CHECK(
	    cmdline_module_params("quiet virtio_blk.queue=/dev/vda,131072,x "
				  "virtio-blk.z=\"a b\" other.p=1 virtio_blk.flag virtio_blkx.n=1",
				  "virtio_blk", out, sizeof(out)) == 0);
	CHECK_STR(out, "base=1 queue=/dev/vda,131072,x z=\"a b\" flag");
	char small[8] = "";
	CHECK(cmdline_module_params("m.param=toolongvalue", "m", small, sizeof(small)) ==
	      -ENAMETOOLONG);
}

/* built-in phram and block2mtd: the kernel made the last device, the init makes the others */
static void builtin_devices_the_kernel_dropped(void)
{
	char out[256] = "block2mtd=/dev/vda,131072,rootfs_data";
	CHECK(cmdline_builtin_dropped(
		  "quiet block2mtd.block2mtd=/dev/vdc4,131072,rootfs_a "
		  "phram.phram=x,1,2 block2mtd.block2mtd=/dev/vdc5,131072,rootfs_b "
		  "block2mtd.block2mtd=/dev/vdc6,131072,rootfs_c",
		  "block2mtd", out, sizeof(out)) == 0);
	CHECK_STR(out, "block2mtd=/dev/vda,131072,rootfs_data block2mtd=/dev/vdc4,131072,rootfs_a "
		       "block2mtd=/dev/vdc5,131072,rootfs_b");
	char one[64] = "";
	CHECK(cmdline_builtin_dropped("phram.phram=rootfs_b,1,2 quiet", "phram", one,
				      sizeof(one)) == 0);
	CHECK_STR(one, ""); /* the kernel's own */
	CHECK(cmdline_builtin_dropped("virtio_blk.a=1 virtio_blk.a=2", "virtio_blk", one,
				      sizeof(one)) == 0);
	CHECK_STR(one, "");
	char small[8] = "";
	CHECK(cmdline_builtin_dropped("phram.phram=a,1,2 phram.phram=b,1,2", "phram", small,
				      sizeof(small)) == -ENAMETOOLONG);
}

/* strata.slot=: one letter; each slot has its own lowers, named NAME_<letter> */
static void slots_name_their_own_lowers(void)
{
	struct strata_opts o;
	char part[16];
	int n = 0;
	reported[0] = '\0';
	opts_defaults(&o);
	CHECK_STR(o.slot, "");
	CHECK(opts_slot_part(&o, "rootfs", part, sizeof(part)) == 0);
	CHECK_STR(part, "rootfs");
	CHECK(opts_parse_cmdline(&o, "strata.slot=B", report, &n) == 0);
	CHECK_STR(o.slot, "B");
	CHECK(opts_slot_part(&o, "rootfs", part, sizeof(part)) == 0);
	CHECK_STR(part, "rootfs_b");
	CHECK(opts_slot_part(&o, "a_layer_name_too_long", part, sizeof(part)) == -ENAMETOOLONG);
	CHECK(opts_parse_cmdline(&o, "strata.slot=AB strata.slot=b strata.slot= strata.slot=/",
				 report, &n) == 4);
	CHECK_STR(o.slot, "B");
	CHECK(strstr(reported, "[strata.slot expects a slot's letter (A, B)]") != NULL);
}

int main(void)
{
	RUN(slots_name_their_own_lowers);
	RUN(defaults_come_from_config);
	RUN(valid_keys_apply);
	RUN(stacks_deeper_than_the_kernel_allows_are_refused);
	RUN(bad_values_are_named_and_ignored);
	RUN(quotes_group_words);
	RUN(oversized_words_are_skipped);
	RUN(module_params_like_modprobe);
	RUN(builtin_devices_the_kernel_dropped);
	return UNIT_EXIT();
}
