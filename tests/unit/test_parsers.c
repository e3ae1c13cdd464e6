// SPDX-License-Identifier: GPL-2.0-only
/* /proc/mtd, module lists, overlay options, boot record and JSON reading. */
#define UNIT_NAME "parsers"
#include "unit.h"
#include "../../init/lib/bootrec.h"
#include "../../init/lib/flashid.h"
#include "../../init/lib/record.h"
#include "../../init/lib/json.h"
#include "../../init/lib/modules.h"
#include "../../init/lib/mtd.h"
#include "../../init/lib/ovl.h"
#include "../../init/lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char proc_mtd[] = "dev:    size   erasesize  name\n"
			       "mtd0: 02000000 00020000 \"rootfs\"\n"
			       "mtd1: 00800000 00020000 \"rootfs_data\"\n"
			       "mtd12: 00100000 00010000 \"name with spaces\"\n";

static void mtd_finds_by_exact_name(void)
{
	struct mtd_part p;
	CHECK(mtd_find(proc_mtd, "rootfs_data", &p) == 0);
	CHECK(p.index == 1 && p.size == 0x800000 && p.erasesize == 0x20000);
	CHECK(mtd_find(proc_mtd, "rootfs", &p) == 0 && p.index == 0);
	CHECK(mtd_find(proc_mtd, "name with spaces", &p) == 0 && p.index == 12);
	CHECK(mtd_find(proc_mtd, "root", &p) == -ENOENT);
	CHECK(mtd_find("", "rootfs", &p) == -ENOENT);
}

static void mtd_rejects_malformed(void)
{
	struct mtd_part p;
	CHECK(mtd_find("mtdX: 1 2 \"a\"\n", "a", &p) == -EINVAL);
	CHECK(mtd_find("mtd0: zz 2 \"a\"\n", "a", &p) == -EINVAL);
	CHECK(mtd_find("mtd0: 10 20 a\n", "a", &p) == -EINVAL);
	CHECK(mtd_find("mtd0: 10 20 \"\n", "a", &p) == -EINVAL);
}

static void mtd_lists_names(void)
{
	char buf[128];
	mtd_list_names(proc_mtd, buf, sizeof(buf));
	CHECK_STR(buf, "\"rootfs\", \"rootfs_data\", \"name with spaces\"");
	mtd_list_names("dev:    size   erasesize  name\n", buf, sizeof(buf));
	CHECK_STR(buf, "none");
}

static void modlist_parses_lines(void)
{
	const char *c = "# comment\n\n  mtd\nphram phram=rootfs,1,2,3  \nbad/name x\nlast";
	char name[32], params[64];
	CHECK(modlist_next(&c, name, sizeof(name), params, sizeof(params)) == 1);
	CHECK_STR(name, "mtd");
	CHECK_STR(params, "");
	CHECK(modlist_next(&c, name, sizeof(name), params, sizeof(params)) == 1);
	CHECK_STR(name, "phram");
	CHECK_STR(params, "phram=rootfs,1,2,3");
	CHECK(modlist_next(&c, name, sizeof(name), params, sizeof(params)) == -EINVAL);
	CHECK(modlist_next(&c, name, sizeof(name), params, sizeof(params)) == 1);
	CHECK_STR(name, "last");
	CHECK(modlist_next(&c, name, sizeof(name), params, sizeof(params)) == 0);
}

static void ovl_options_escape_and_check(void)
{
	char buf[256];
	struct ovl_spec s = {
	    .lowers = {"/l/a", "/l/b,c:d"}, .n_lowers = 2, .upper = "/u", .work = "/w"};
	CHECK(ovl_build_options(&s, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "lowerdir=/l/a:/l/b\\,c\\:d,upperdir=/u,workdir=/w");
	char tiny[20];
	CHECK(ovl_build_options(&s, tiny, sizeof(tiny)) == -ENAMETOOLONG);
	struct ovl_spec data = {.lowers = {"/m"},
				.n_lowers = 1,
				.datadir = "/d:x",
				.upper = "/u",
				.work = "/w",
				.flags = (const char *const[]){"verity=require", NULL}};
	CHECK(ovl_build_options(&data, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "lowerdir=/m::/d\\:x,upperdir=/u,workdir=/w,verity=require");
	struct ovl_spec ro_one = {.lowers = {"/l"}, .n_lowers = 1};
	CHECK(ovl_build_options(&ro_one, buf, sizeof(buf)) == -EINVAL);
	struct ovl_spec no_work = {.lowers = {"/l"}, .n_lowers = 1, .upper = "/u"};
	CHECK(ovl_build_options(&no_work, buf, sizeof(buf)) == -EINVAL);
	struct ovl_spec none = {.n_lowers = 0};
	CHECK(ovl_build_options(&none, buf, sizeof(buf)) == -EINVAL);
}

/* the kernel's first error names the cause; later ones only its consequences */
static void fsctx_first_error_is_kept(void)
{
	char msg[64] = "";
	fsctx_keep_message(msg, sizeof(msg), "i overlay: using lowerdir+\n");
	CHECK_STR(msg, "i overlay: using lowerdir+");
	fsctx_keep_message(msg, sizeof(msg), "e overlay: failed to resolve '/x': -2\n");
	CHECK_STR(msg, "e overlay: failed to resolve '/x': -2");
	fsctx_keep_message(msg, sizeof(msg), "e overlay: failed to set lowerdir\n");
	fsctx_keep_message(msg, sizeof(msg), "w overlay: something\n");
	CHECK_STR(msg, "e overlay: failed to resolve '/x': -2");
	char tiny[8] = "";
	fsctx_keep_message(tiny, sizeof(tiny), "e overlay: long");
	CHECK_STR(tiny, "e overl");
}

/* phases measured on other threads go in by their start, whenever they are added */
static void bootrec_orders_phases(void)
{
	static struct bootrec rec;
	bootrec_phase_begin(&rec, "cmdline", 10);
	bootrec_phase_end(&rec, 20);
	bootrec_phase_begin(&rec, "partitions", 40);
	bootrec_phase_end(&rec, 50);
	bootrec_phase_add(&rec, "modules", 30, 90);
	bootrec_phase_add(&rec, "verity", 60, 95);
	bootrec_phase_begin(&rec, "lower", 100);
	bootrec_phase_end(&rec, 110);
	bootrec_phase_add(&rec, "first", 0, 5);
	CHECK(rec.n_phases == 6);
	const char *want[] = {"first", "cmdline", "modules", "partitions", "verity", "lower"};
	for (size_t i = 0; i < rec.n_phases; i++)
		CHECK_STR(rec.phases[i].name, want[i]);
	CHECK(rec.phases[2].start_ns == 30 && rec.phases[2].end_ns == 90);
	CHECK(rec.phases[5].end_ns == 110);
	for (size_t i = rec.n_phases; i < BOOTREC_MAX_PHASES; i++)
		bootrec_phase_add(&rec, "more", 200 + i, 300);
	bootrec_phase_add(&rec, "full", 1, 2); /* no room: left out */
	CHECK(rec.n_phases == BOOTREC_MAX_PHASES && strcmp(rec.phases[1].name, "full") != 0);
}

static void bootrec_round_trips(void)
{
	static struct bootrec rec;
	static char json[8192];
	char s[64];
	uint64_t v;
	rec.init_start_ns = 100;
	rec.exec_ns = 2000000123ULL;
	snprintf(rec.init, sizeof(rec.init), "/sbin/\"init\"");
	snprintf(rec.slot, sizeof(rec.slot), "B");
	snprintf(rec.degraded_reason, sizeof(rec.degraded_reason), "a\nb");
	bootrec_phase_begin(&rec, "modules", 200);
	bootrec_phase_end(&rec, 300);
	bootrec_add_layer(&rec, "lower", "/dev/mtdblock0", "squashfs", "/run/strata/lower/0",
			  "mounted");
	CHECK(bootrec_format_json(&rec, json, sizeof(json)) > 0);
	CHECK(json_get_u64(json, "exec_ns", &v) == 0 && v == 2000000123ULL);
	CHECK(json_get_string(json, "init", s, sizeof(s)) == 0);
	CHECK_STR(s, "/sbin/\"init\"");
	CHECK(json_get_string(json, "slot", s, sizeof(s)) == 0);
	CHECK_STR(s, "B");
	CHECK(json_get_string(json, "mode", s, sizeof(s)) == 0);
	CHECK_STR(s, "degraded");
	CHECK(json_get_string(json, "degraded_reason", s, sizeof(s)) == 0);
	CHECK_STR(s, "a\nb");
	CHECK(json_get_u64(json, "end_ns", &v) == 0 && v == 300);
	CHECK(json_get_string(json, "nope", s, sizeof(s)) == -ENOENT);
	CHECK(json_get_string(json, "fatal_phase", s, sizeof(s)) == 0 && s[0] == '\0');
	rec.fatal_phase = "partitions";
	snprintf(rec.fatal_reason, sizeof(rec.fatal_reason), "root partition 'x' not found");
	CHECK(bootrec_format_json(&rec, json, sizeof(json)) > 0);
	CHECK(json_get_string(json, "fatal_phase", s, sizeof(s)) == 0);
	CHECK_STR(s, "partitions");
	CHECK(json_get_string(json, "fatal_reason", s, sizeof(s)) == 0);
	CHECK_STR(s, "root partition 'x' not found");
	CHECK(json_get_string(json, "fstype", s, sizeof(s)) == 0);
	CHECK_STR(s, "squashfs");
	struct bootrec_verity *ver = bootrec_add_verity(&rec);
	CHECK(ver != NULL);
	snprintf(ver->layer, sizeof(ver->layer), "rootfs");
	snprintf(ver->measured, sizeof(ver->measured), "%064d", 7);
	ver->state = "refused";
	ver->bytes = 4097;
	CHECK(bootrec_format_json(&rec, json, sizeof(json)) > 0);
	char hex[65];
	CHECK(json_get_string(json, "measured", hex, sizeof(hex)) == 0 && strlen(hex) == 64 &&
	      hex[63] == '7');
	ver->error = "digest mismatch";
	CHECK(bootrec_format_json(&rec, json, sizeof(json)) > 0);
	CHECK(json_get_string(json, "error", s, sizeof(s)) == 0);
	CHECK_STR(s, "digest mismatch");
	CHECK(json_get_u64(json, "bytes", &v) == 0 && v == 4097);
	for (int i = 1; i < BOOTREC_MAX_VERITY; i++)
		CHECK(bootrec_add_verity(&rec) != NULL);
	CHECK(bootrec_add_verity(&rec) == NULL);
	char small[16];
	CHECK(bootrec_format_json(&rec, small, sizeof(small)) == -ENAMETOOLONG);
}

static void json_rejects_bad_text(void)
{
	char s[8];
	uint64_t v;
	CHECK(json_get_string("{\"k\": 12}", "k", s, sizeof(s)) == -EINVAL);
	CHECK(json_get_string("{\"k\": \"ab", "k", s, sizeof(s)) == -EINVAL);
	CHECK(json_get_string("{\"k\": \"much too long\"}", "k", s, sizeof(s)) == -ENAMETOOLONG);
	CHECK(json_get_string("{\"k\": \"\\u00\"}", "k", s, sizeof(s)) == -EINVAL);
	CHECK(json_get_u64("{\"k\": -1}", "k", &v) == -EINVAL);
	CHECK(json_get_u64("{\"x\": \"k\", \"k\": 7}", "k", &v) == 0 && v == 7);
}

/* The fields `strata status` reads, from a record as bootrec writes it. */
static void json_reads_nested_record_fields(void)
{
	static struct bootrec rec;
	static char json[8192];
	char obj[1536], s[256];
	uint64_t v;
	bool b;
	rec.first_boot = true;
	rec.cap_rename_whiteout = 0;
	rec.cap_rename_exchange = -1;
	rec.system_gen = 4;
	rec.user_gen = 7;
	rec.stack_levels = 1;
	rec.has_previous = true;
	snprintf(rec.previous.mode, sizeof(rec.previous.mode), "degraded");
	rec.previous.err = 28;
	snprintf(rec.previous.reason, sizeof(rec.previous.reason), "full \"data\"\n\x01");
	CHECK(bootrec_format_json(&rec, json, sizeof(json)) > 0);
	CHECK(json_get_bool(json, "first_boot", &b) == 0 && b);
	CHECK(json_get_object(json, "capabilities", obj, sizeof(obj)) == 0);
	CHECK(json_get_bool(obj, "rename_whiteout", &b) == 0 && !b);
	CHECK(json_get_bool(obj, "rename_exchange", &b) == -EINVAL); /* null: not probed */
	CHECK(json_get_object(json, "generations", obj, sizeof(obj)) == 0);
	CHECK(json_get_u64(obj, "system", &v) == 0 && v == 4);
	CHECK(json_get_u64(obj, "user", &v) == 0 && v == 7);
	CHECK(json_get_object(json, "previous_boot", obj, sizeof(obj)) == 0);
	CHECK(obj[0] == '{' && obj[strlen(obj) - 1] == '}');
	CHECK(json_get_string(obj, "mode", s, sizeof(s)) == 0);
	CHECK_STR(s, "degraded");
	CHECK(json_get_string(obj, "reason", s, sizeof(s)) == 0);
	CHECK_STR(s, "full \"data\"\n\x01");
	CHECK(json_get_u64(obj, "errno", &v) == 0 && v == 28);
	const char *cur = json_find_array(json, "stack");
	CHECK(cur && json_array_next_string(&cur, s, sizeof(s)) == 1);
	CHECK_STR(s, "system");
	CHECK(json_array_next_string(&cur, s, sizeof(s)) == 0);
	rec.has_previous = false;
	CHECK(bootrec_format_json(&rec, json, sizeof(json)) > 0);
	CHECK(json_get_object(json, "previous_boot", obj, sizeof(obj)) == -EINVAL); /* null */
	CHECK(json_get_object(json, "nope", obj, sizeof(obj)) == -ENOENT);
}

/* A key read inside its object only: a "system" elsewhere, found first at the top, is not it. */
static void json_scopes_reads_to_an_object(void)
{
	const char *text =
	    "{\"layers\": [{\"system\": 9}], \"generations\": {\"system\": 1, "
	    "\"inner\": {\"user\": 5}, \"user\": 2, \"s\": \"}{\\\"\"}, \"user\": 3}";
	char obj[128], small[8];
	uint64_t v;
	CHECK(json_get_u64(text, "system", &v) == 0 && v == 9); /* the first anywhere */
	CHECK(json_get_object(text, "generations", obj, sizeof(obj)) == 0);
	CHECK_STR(obj, "{\"system\": 1, \"inner\": {\"user\": 5}, \"user\": 2, \"s\": \"}{\\\"\"}");
	CHECK(json_get_u64(obj, "system", &v) == 0 && v == 1);
	CHECK(json_get_object(obj, "inner", small, sizeof(small)) == -ENAMETOOLONG);
	size_t n = strlen(obj);
	CHECK(json_get_object(text, "generations", obj, n) == -ENAMETOOLONG);
	CHECK(json_get_object(text, "generations", obj, n + 1) == 0 && strlen(obj) == n);
	CHECK(json_get_object("{\"o\": {}}", "o", small, sizeof(small)) == 0);
	CHECK_STR(small, "{}");
	CHECK(json_get_object("{\"o\": {\"a\": {\"b\": 1}", "o", obj, sizeof(obj)) == -EINVAL);
	CHECK(json_get_object("{\"o\": {\"a\": 1}", "o", obj, sizeof(obj)) ==
	      0); /* only o must close */
	CHECK(json_get_object("{\"o\": {\"a\": \"}", "o", obj, sizeof(obj)) == -EINVAL);
	CHECK(json_get_object("{\"o\": {\"a\": \"\\", "o", obj, sizeof(obj)) == -EINVAL);
	CHECK(json_get_object("{\"o\": [{}]}", "o", obj, sizeof(obj)) == -EINVAL);
	CHECK(json_get_object("{\"o\": 1}", "o", obj, sizeof(obj)) == -EINVAL);
	CHECK(json_get_object("{\"o\": \"{}\"}", "o", obj, sizeof(obj)) == -EINVAL);
	CHECK(json_get_object("{\"x\": \"o\", \"o\": {}}", "o", obj, sizeof(obj)) == 0);
}

static void json_reads_booleans(void)
{
	bool b = false;
	CHECK(json_get_bool("{\"k\": true}", "k", &b) == 0 && b);
	CHECK(json_get_bool("{\"k\":false}", "k", &b) == 0 && !b);
	CHECK(json_get_bool("{\"k\"\n\t:\r\n true\n}", "k", &b) == 0 && b);
	CHECK(json_get_bool("{\"k\": true", "k", &b) == 0 && b); /* cut after the value */
	CHECK(json_get_bool("{\"a\": [true], \"k\": false,\"j\":1}", "k", &b) == 0 && !b);
	b = true;
	CHECK(json_get_bool("{\"k\": null}", "k", &b) == -EINVAL && b);
	CHECK(json_get_bool("{\"k\": \"true\"}", "k", &b) == -EINVAL);
	CHECK(json_get_bool("{\"k\": truest}", "k", &b) == -EINVAL);
	CHECK(json_get_bool("{\"k\": false_}", "k", &b) == -EINVAL);
	CHECK(json_get_bool("{\"k\": tru}", "k", &b) == -EINVAL);
	CHECK(json_get_bool("{\"k\": 1}", "k", &b) == -EINVAL);
	CHECK(json_get_bool("{\"k\": }", "k", &b) == -EINVAL);
	CHECK(json_get_bool("{\"k\":", "k", &b) == -EINVAL);
	CHECK(json_get_bool("{\"kk\": true, \"x\": \"k\"}", "k", &b) == -ENOENT);
	CHECK(json_get_bool("", "k", &b) == -ENOENT);
}

static void json_reads_string_arrays(void)
{
	char s[8];
	const char *cur = json_find_array("{\"stack\": [\"system\", \"user\"]}", "stack");
	CHECK(cur && json_array_next_string(&cur, s, sizeof(s)) == 1);
	CHECK_STR(s, "system");
	CHECK(json_array_next_string(&cur, s, sizeof(s)) == 1);
	CHECK_STR(s, "user");
	CHECK(json_array_next_string(&cur, s, sizeof(s)) == 0);
	CHECK(json_array_next_string(&cur, s, sizeof(s)) == 0); /* stays at the end */
	cur = json_find_array("{\"a\":[\n\t\"x\\\"]\" ,\n\"\\u0041\"\n]}", "a");
	CHECK(cur && json_array_next_string(&cur, s, sizeof(s)) == 1);
	CHECK_STR(s, "x\"]");
	CHECK(json_array_next_string(&cur, s, sizeof(s)) == 1);
	CHECK_STR(s, "A");
	CHECK(json_array_next_string(&cur, s, sizeof(s)) == 0);
	cur = json_find_array("{\"a\": []}", "a");
	CHECK(cur && json_array_next_string(&cur, s, sizeof(s)) == 0);
	cur = json_find_array("{\"a\": [\"system\"", "a");
	CHECK(cur && json_array_next_string(&cur, s, sizeof(s)) == 1);
	CHECK(json_array_next_string(&cur, s, sizeof(s)) == -EINVAL); /* cut before the ']' */
	static const char *const bad[] = {"[1]", "[null]", "[{}]", "[\"ab", "[\"\\q\"]", "["};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cur = bad[i] + 1;
		CHECK(json_array_next_string(&cur, s, sizeof(s)) == -EINVAL);
	}
	cur = "\"much too long\"]";
	CHECK(json_array_next_string(&cur, s, sizeof(s)) == -ENAMETOOLONG);
	CHECK(json_find_array("{\"a\": null}", "a") == NULL);
}

/* The same record in any layout reads the same. */
static void json_reads_any_whitespace(void)
{
	static const char *const layouts[] = {
	    "{\"first_boot\": true, \"generations\": {\"system\": 3, \"user\": 4}, "
	    "\"stack\": [\"system\"], \"previous_boot\": {\"mode\": \"degraded\", \"errno\": 5}}",
	    "{\"first_boot\":true,\"generations\":{\"system\":3,\"user\":4},"
	    "\"stack\":[\"system\"],\"previous_boot\":{\"mode\":\"degraded\",\"errno\":5}}",
	    "{\n \"first_boot\": true,\n \"generations\": {\n  \"system\": 3,\n  \"user\": 4\n },\n"
	    " \"stack\": [\n  \"system\"\n ],\n \"previous_boot\": {\n  \"mode\": \"degraded\",\n"
	    "  \"errno\": 5\n }\n}\n",
	    "{\r\n\t\"first_boot\" :\ttrue ,\r\n\t\"generations\" : { \"system\" : 3 , \"user\" : "
	    "4 } ,"
	    "\t\"stack\" : [ \"system\" ] , \"previous_boot\" : { \"mode\" : \"degraded\" , "
	    "\"errno\" : 5 } }",
	};
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const char *text = layouts[i], *cur;
		char obj[128], s[16];
		uint64_t v;
		bool b = false;
		CHECK(json_get_bool(text, "first_boot", &b) == 0 && b);
		CHECK(json_get_object(text, "generations", obj, sizeof(obj)) == 0);
		CHECK(json_get_u64(obj, "system", &v) == 0 && v == 3);
		CHECK(json_get_u64(obj, "user", &v) == 0 && v == 4);
		CHECK(json_get_object(text, "previous_boot", obj, sizeof(obj)) == 0);
		CHECK(json_get_string(obj, "mode", s, sizeof(s)) == 0);
		CHECK_STR(s, "degraded");
		CHECK(json_get_u64(obj, "errno", &v) == 0 && v == 5);
		cur = json_find_array(text, "stack");
		CHECK(cur && json_array_next_string(&cur, s, sizeof(s)) == 1);
		CHECK_STR(s, "system");
		CHECK(json_array_next_string(&cur, s, sizeof(s)) == 0);
	}
}

static void proc_status_fields(void)
{
	const char *st = "Name:\tinit\nVmPeak:\t  1234 kB\nVmHWM:\t     456 kB\nVmX:\n";
	CHECK(proc_status_kb(st, "VmHWM") == 456);
	CHECK(proc_status_kb(st, "VmPeak") == 1234);
	CHECK(proc_status_kb(st, "VmRSS") == -1);
	CHECK(proc_status_kb(st, "VmX") == -1);
	CHECK(proc_status_kb("", "VmHWM") == -1);
}

static void count_bad(void *arg, unsigned line, int err)
{
	(void)line;
	(void)err;
	(*(unsigned *)arg)++;
}

static void modplan_orders_by_dependency(void)
{
	static struct modplan p;
	CHECK(modplan_parse(&p, "mtd\nphram a=1\nsquashfs\nmtdblock\n",
			    "mtd:\nphram: mtd\nmtdblock: phram mtd unknown\nsquashfs:\n", NULL,
			    NULL) == 0);
	CHECK(p.n == 4);
	CHECK_STR(p.e[1].params, "a=1");
	/* mtd and squashfs are independent: both can start at once */
	CHECK(modplan_next(&p) == 0);
	CHECK(modplan_next(&p) == 2);
	CHECK(modplan_next(&p) == -EAGAIN);
	p.e[0].state = MOD_DONE;
	CHECK(modplan_next(&p) == 1);
	CHECK(modplan_next(&p) == -EAGAIN);
	p.e[1].state = MOD_FAILED;
	/* mtdblock needs the failed phram: skipped, naming it */
	CHECK(modplan_next(&p) == -EAGAIN);
	CHECK(p.e[3].state == MOD_SKIPPED && p.e[3].err == 1);
	p.e[2].state = MOD_DONE;
	CHECK(modplan_next(&p) == -ENOENT);
}

struct run_arg {
	struct modplan *plan;
	const char *dir;
};

static void *run_plan(void *arg)
{
	struct run_arg *a = arg;
	modplan_run(a->plan, a->dir, 2);
	return NULL;
}

/* another thread waits for one module while the loaders run: the load's error, or the failed
 * dependency's; a module not in the plan is not waited for */
static void modplan_wait_for_one(void)
{
	static struct modplan p;
	CHECK(modplan_parse(&p, "mtd\njffs2\noverlay\n", "mtd:\njffs2: mtd\noverlay:\n", NULL,
			    NULL) == 0);
	struct run_arg a = {&p, "/nonexistent"};
	pthread_t t;
	CHECK(pthread_create(&t, NULL, run_plan, &a) == 0);
	CHECK(modplan_wait(&p, "jffs2") == -ENOENT);
	CHECK(p.e[1].state == MOD_SKIPPED && p.e[1].err == 0);
	CHECK(modplan_wait(&p, "mtd") == -ENOENT && p.e[0].state == MOD_FAILED);
	CHECK(modplan_wait(&p, "ext4") == 0);
	pthread_join(t, NULL);
	CHECK(modplan_wait(&p, "overlay") == -ENOENT && p.e[2].state == MOD_FAILED);
}

static void modplan_limits(void)
{
	static struct modplan p;
	static char list[MODPLAN_MAX * 8 + 64];
	size_t used = 0;
	for (int i = 0; i <= MODPLAN_MAX; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "m%d\n", i);
	CHECK(modplan_parse(&p, list, NULL, NULL, NULL) == -E2BIG);
	CHECK(p.n == MODPLAN_MAX);
	CHECK_STR(p.e[MODPLAN_MAX - 1].name, "m63");
	unsigned bad = 0;
	CHECK(modplan_parse(&p, "ok\nb@d\n", NULL, count_bad, &bad) == 0);
	CHECK(p.n == 1 && bad == 1);
}

static void builtin_modules_and_their_parameters(void)
{
	static struct modplan p;
	CHECK(modplan_parse(&p, "virtio_blk\nblock2mtd a=1 a=2\nsquashfs\n", NULL, NULL, NULL) ==
	      0);
	modplan_mark_builtin(&p, "squashfs\nblock2mtd\nunlisted\n");
	CHECK(!p.e[0].builtin && p.e[1].builtin && p.e[2].builtin);

	char key[16], val[32];
	const char *c = "block2mtd=/dev/vda,131072,rootfs_data  bare \"q=a b\" k=\"x y\"";
	CHECK(modparam_next(&c, key, sizeof(key), val, sizeof(val)) == 1);
	CHECK_STR(key, "block2mtd");
	CHECK_STR(val, "/dev/vda,131072,rootfs_data");
	CHECK(modparam_next(&c, key, sizeof(key), val, sizeof(val)) == 1);
	CHECK_STR(key, "bare");
	CHECK_STR(val, "");
	CHECK(modparam_next(&c, key, sizeof(key), val, sizeof(val)) == 1);
	CHECK_STR(key, "q");
	CHECK_STR(val, "a b");
	CHECK(modparam_next(&c, key, sizeof(key), val, sizeof(val)) == 1);
	CHECK_STR(key, "k");
	CHECK_STR(val, "x y");
	CHECK(modparam_next(&c, key, sizeof(key), val, sizeof(val)) == 0);
	/* too long: an error, and the next word is still found */
	c = "k=0123456789012345678901234567890123456789 ok=1";
	CHECK(modparam_next(&c, key, sizeof(key), val, sizeof(val)) == -ENAMETOOLONG);
	CHECK(modparam_next(&c, key, sizeof(key), val, sizeof(val)) == 1);
	CHECK_STR(key, "ok");
}

static void flash_contents_are_told_apart(void)
{
	static unsigned char b[FLASHID_BYTES];
	memset(b, 0xff, sizeof(b));
	CHECK(flash_identify(b, sizeof(b)) == FLASH_ERASED);
	CHECK(flash_identify(b, 0) == FLASH_UNKNOWN);
	b[2047] = 0;
	CHECK(flash_identify(b, sizeof(b)) == FLASH_UNKNOWN);
	memset(b, 0xff, sizeof(b));
	b[0] = 0x85, b[1] = 0x19;
	CHECK(flash_identify(b, sizeof(b)) == FLASH_JFFS2);
	memcpy(b, "\xde\xad\xc0\xde", 4);
	CHECK(flash_identify(b, sizeof(b)) == FLASH_DEADCODE);
	memcpy(b, "UBI#", 4);
	CHECK(flash_identify(b, sizeof(b)) == FLASH_UBI);
	memcpy(b, "hsqs", 4);
	CHECK(flash_identify(b, sizeof(b)) == FLASH_SQUASHFS);
	memset(b, 0, sizeof(b));
	b[1080] = 0x53, b[1081] = 0xef;
	CHECK(flash_identify(b, sizeof(b)) == FLASH_EXT4);
	CHECK(flash_identify(b, 1000) == FLASH_UNKNOWN);
	CHECK_STR(flash_content_name(FLASH_EXT4), "ext2/3/4");
}

static void outcome_record_round_trips(void)
{
	unsigned char slot[RECORD_SLOT];
	struct outcome_record in = {.seq = 7, .mode = "degraded", .err = 74}, out;
	snprintf(in.reason, sizeof(in.reason), "'rootfs_data' holds ext2/3/4,\nnot jffs2");
	CHECK(record_encode(&in, slot) == 0);
	CHECK(record_decode(slot, &out) == 0);
	CHECK(out.seq == 7 && out.err == 74);
	CHECK_STR(out.mode, "degraded");
	CHECK_STR(out.reason, "'rootfs_data' holds ext2/3/4, not jffs2");
	slot[40] ^= 1; /* a torn or rotten write */
	CHECK(record_decode(slot, &out) == -EBADMSG);
	memset(slot, 0xff, sizeof(slot));
	CHECK(record_decode(slot, &out) == -ENODATA);
	memset(slot, 0, sizeof(slot));
	CHECK(record_decode(slot, &out) == -EBADMSG);
	/* the CRC is the usual IEEE one */
	CHECK(crc32_ieee(0, "123456789", 9) == 0xCBF43926u);
}

static void *make_node_later(void *path)
{
	nanosleep(&(struct timespec){0, 30000000}, NULL);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	return NULL;
}

/* a device node devtmpfs makes after the call that asked for it */
static void waiting_for_a_node(void)
{
	char path[] = "/tmp/strata-node-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK(wait_for_path(path, 0) == 0);
	unlink(path);
	uint64_t t0 = now_boottime_ns();
	CHECK(wait_for_path(path, 20) == -ENODEV);
	CHECK(now_boottime_ns() - t0 >= 20000000);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, make_node_later, path) == 0);
	CHECK(wait_for_path(path, 2000) == 0);
	pthread_join(t, NULL);
	unlink(path);
}

int main(void)
{
	RUN(mtd_finds_by_exact_name);
	RUN(mtd_rejects_malformed);
	RUN(mtd_lists_names);
	RUN(modlist_parses_lines);
	RUN(ovl_options_escape_and_check);
	RUN(bootrec_orders_phases);
	RUN(bootrec_round_trips);
	RUN(json_rejects_bad_text);
	RUN(json_reads_nested_record_fields);
	RUN(json_scopes_reads_to_an_object);
	RUN(json_reads_booleans);
	RUN(json_reads_string_arrays);
	RUN(json_reads_any_whitespace);
	RUN(proc_status_fields);
	RUN(modplan_orders_by_dependency);
	RUN(modplan_wait_for_one);
	RUN(modplan_limits);
	RUN(builtin_modules_and_their_parameters);
	RUN(flash_contents_are_told_apart);
	RUN(outcome_record_round_trips);
	RUN(fsctx_first_error_is_kept);
	RUN(waiting_for_a_node);
	return UNIT_EXIT();
}
