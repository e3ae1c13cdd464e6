// SPDX-License-Identifier: GPL-2.0-only
/* strata status: how this boot assembled the root; non-zero exit when degraded. */
#include "json.h"
#include "request.h"
#include "safefs.h"
#include "cmd.h"
#include "paths.h"
#include "util.h"

#include <stdio.h>
#include <sys/statvfs.h>
#include <string.h>
#include <unistd.h>

/* The boot before this one, when it was degraded or failed: "previous_boot": {"mode", "errno",
 * "reason"}. */
static void show_previous_boot(const char *text)
{
	/* a reason of 199 bytes escaped as \u00XX throughout, with the other fields, fits */
	char prev[1536], mode[16], reason[256];
	uint64_t err;
	if (json_get_object(text, "previous_boot", prev, sizeof(prev)) != 0 ||
	    json_get_string(prev, "mode", mode, sizeof(mode)) != 0 ||
	    json_get_string(prev, "reason", reason, sizeof(reason)) != 0 ||
	    json_get_u64(prev, "errno", &err) != 0)
		return;
	if (strcmp(mode, "degraded") == 0)
		printf("previous:  the boot before this one was DEGRADED: %s (errno %llu)\n",
		       reason, (unsigned long long)err);
	else if (strcmp(mode, "failed") == 0)
		printf("previous:  the boot before this one FAILED: %s\n", reason);
}

/* What the upper filesystem lacks: "capabilities": {...} false (null: not probed). */
static void show_missing_capabilities(const char *text)
{
	static const struct {
		const char *key, *line;
	} caps[] = {
	    {"rename_whiteout",
	     "kernel:    upper lacks RENAME_WHITEOUT: renaming a name that also exists in the "
	     "lower fails (EINVAL, EXDEV for directories)\n"},
	    {"rename_exchange",
	     "kernel:    upper lacks RENAME_EXCHANGE: directory changes are not atomic\n"},
	};
	char obj[256];
	bool has;
	if (json_get_object(text, "capabilities", obj, sizeof(obj)) < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++)
		if (json_get_bool(obj, caps[i].key, &has) == 0 && !has)
			fputs(caps[i].line, stdout);
}

/* "stack": ["system"] (/ is the system overlay itself) or ["system+user"] (one overlay). */
static bool stack_is(const char *text, const char *only)
{
	const char *cur = json_find_array(text, "stack");
	char level[16];
	return cur && json_array_next_string(&cur, level, sizeof(level)) == 1 &&
	       strcmp(level, only) == 0 && json_array_next_string(&cur, level, sizeof(level)) == 0;
}

/* What the record says beyond the mode: previous boot, first boot, kernel, generations, stack. */
static void show_record_notes(const char *text)
{
	char gens[128];
	uint64_t sys_gen, user_gen;
	bool first_boot;
	show_previous_boot(text);
	if (json_get_bool(text, "first_boot", &first_boot) == 0 && first_boot)
		printf("first boot: the data flash was erased; the upper started empty\n");
	show_missing_capabilities(text);
	bool one_level = stack_is(text, "system"), collapsed = stack_is(text, "system+user");
	if (json_get_object(text, "generations", gens, sizeof(gens)) == 0 &&
	    json_get_u64(gens, "system", &sys_gen) == 0 &&
	    json_get_u64(gens, "user", &user_gen) == 0)
		printf("layers:    system generation %llu, user generation %llu%s\n",
		       (unsigned long long)sys_gen, (unsigned long long)user_gen,
		       one_level ? " (not mounted)" : "");
	/* overlayfs nests 2 deep: what is left for overlays whose lowers are on / */
	printf("stack:     %s\n",
	       one_level   ? "system overlay alone: / is the system layer; one overlay level left "
			     "for overlays on /"
	       : collapsed ? "user and system layers in one overlay (system+user); one overlay "
			     "level left for overlays on /"
			   : "user overlay over the system overlay; no overlay level left for "
			     "overlays on / (strata.stack=system+user leaves one)");
}

/* A reset or revert that the next boot applies (DATA/strata.request). */
static void show_pending_request(void)
{
	static char req_text[16384];
	static struct request req;
	unsigned bad_line;
	int data = safe_base(STRATA_DATA_DIR);
	mode_t kind = 0;
	ssize_t req_len =
	    data < 0 ? data : safe_read_file(data, REQUEST_NAME, req_text, sizeof(req_text), &kind);
	if (data >= 0)
		close(data);
	if (req_len != -ENOENT && req_len < 0 && data >= 0) {
		char why[96];
		printf("pending:   an unreadable request (%s); it will be set aside\n",
		       safe_strerror((int)req_len, kind, why, sizeof(why)));
	} else if (req_len >= 0) {
		if (request_parse(req_text, &req, &bad_line) < 0) {
			printf("pending:   a malformed request (line %u); it will be set aside\n",
			       bad_line);
		} else {
			printf("pending:   %s at the next boot (request %lu)",
			       request_kind_name(req.kind), req.id);
			if (req.n_keep)
				printf(", keeping %zu path%s", req.n_keep,
				       req.n_keep == 1 ? "" : "s");
			for (size_t i = 0; i < req.n_revert; i++)
				printf("%s %s (%s)", i ? "," : ":", req.revert[i].path,
				       layer_name(req.revert[i].layer));
			printf("\n");
		}
	}
}

/* How full the flash under each upper is. */
static void show_flash_use(void)
{
	static const char *const uppers[] = {STRATA_DATA_DIR, STRATA_USERDATA_DIR};
	for (size_t i = 0; i < ARRAY_SIZE(uppers); i++) {
		struct statvfs sv;
		if (statvfs(uppers[i], &sv) < 0 || sv.f_blocks == 0)
			continue;
		unsigned long long total = (unsigned long long)sv.f_blocks * sv.f_frsize;
		unsigned long long used = total - (unsigned long long)sv.f_bfree * sv.f_frsize;
		printf("flash:     %s: %llu KiB used of %llu KiB (%llu%%)%s\n", uppers[i],
		       used >> 10, total >> 10, total ? used * 100 / total : 0,
		       sv.f_bavail ? "" : ", full: writes fail with ENOSPC");
	}
}

/* An overlay mounted read-only: overlayfs could not set up its work directory. */
static bool show_read_only_overlays(void)
{
	static const char *const stacks[] = {"/", STRATA_SYSTEM_DIR};
	bool read_only = false;
	for (size_t i = 0; i < ARRAY_SIZE(stacks); i++) {
		struct statvfs sv;
		if (statvfs(stacks[i], &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
			printf("overlay:   %s is READ-ONLY: overlayfs could not create its work "
			       "directory (is the upper full? free space in %s)\n",
			       stacks[i], STRATA_DATA_DIR);
			read_only = true;
		}
	}
	return read_only;
}

/* What the boot could not do as asked: said on every status until it is fixed. */
static bool show_boot_problems(const char *text)
{
	static const struct {
		const char *key, *label;
	} problems[] = {
	    {"state_repaired", "state:     REPAIRED: "},
	    {"request_error", "request:   FAILED: "},
	    {"keep_failed", "keep:      NOT KEPT: "},
	    {"revert_failed", "revert:    NOT REVERTED: "},
	};
	bool any = false;
	for (size_t i = 0; i < ARRAY_SIZE(problems); i++) {
		char what[512];
		if (json_get_string(text, problems[i].key, what, sizeof(what)) == 0 && what[0]) {
			printf("%s%s\n", problems[i].label, what);
			any = true;
		}
	}
	return any;
}

int cmd_status(int argc, char **argv)
{
	static char text[16384];
	char mode[32], reason[256], init[128];
	uint64_t start = 0, exec = 0;
	int json = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else {
			return cmd_usage_error(argv[0], "--json", "unknown argument '%s'", argv[i]);
		}
	}
	ssize_t n = read_file(STRATA_BOOT_RECORD, text, sizeof(text));
	if (n < 0) {
		fprintf(stderr, "strata status: cannot read '%s': %s\n", STRATA_BOOT_RECORD,
			strerror((int)-n));
		return 1;
	}
	if (json_get_string(text, "mode", mode, sizeof(mode)) < 0 ||
	    json_get_string(text, "degraded_reason", reason, sizeof(reason)) < 0 ||
	    json_get_string(text, "init", init, sizeof(init)) < 0 ||
	    json_get_u64(text, "init_start_ns", &start) < 0 ||
	    json_get_u64(text, "exec_ns", &exec) < 0) {
		fprintf(stderr, "strata status: '%s' is malformed\n", STRATA_BOOT_RECORD);
		return 1;
	}
	int degraded = strcmp(mode, "normal") != 0;
	if (json) {
		fputs(text, stdout);
		return degraded;
	}
	printf("mode:      %s\n", mode);
	if (degraded)
		printf("reason:    %s\n", reason);
	printf("init:      %s\n", init);
	char slot[24];
	if (json_get_string(text, "slot", slot, sizeof(slot)) == 0 && slot[0]) {
		printf("slot:      %s\n", slot);
		update_status_note(slot[0]);
	}
	if (json_get_string(text, "slot_data", slot, sizeof(slot)) == 0 && slot[0])
		printf("data:      %s at this boot\n", slot);
	show_record_notes(text);
	show_pending_request();
	show_flash_use();
	if (show_read_only_overlays())
		degraded = 1;
	if (show_boot_problems(text))
		degraded = 1;
	printf("assembly:  %llu.%03llu ms\n", (unsigned long long)((exec - start) / 1000000u),
	       (unsigned long long)((exec - start) / 1000u % 1000u));
	return degraded;
}
