// SPDX-License-Identifier: GPL-2.0-only
/*
 * strata reset | revert and OpenWrt's names for reset --full: record a
 * request on the running system; the init applies it at the next boot,
 * before the overlays are mounted. Exit status: 0 done, 1 error, 2 usage.
 * The reset button's resets are reset_request() too.
 */
#include "inspect.h"
#include "json.h"
#include "request.h"
#include "safefs.h"
#include "cmd.h"
#include "paths.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

/* The writable flash must be what this boot runs on, not a tmpfs stand-in. */
static int check_persistent(const char *cmd)
{
	char text[16384], mode[32];
	if (read_file(STRATA_BOOT_RECORD, text, sizeof(text)) < 0 ||
	    json_get_string(text, "mode", mode, sizeof(mode)) < 0) {
		fprintf(stderr, "%s: cannot read '%s': was this system booted by strata?\n", cmd,
			STRATA_BOOT_RECORD);
		return -1;
	}
	if (strcmp(mode, "normal") != 0) {
		fprintf(stderr,
			"%s: this boot is degraded (the upper is a tmpfs); a request "
			"cannot be stored on flash\n",
			cmd);
		return -1;
	}
	return 0;
}

/* The request id after the last applied and any pending one; nothing there is trusted. */
static unsigned long next_request_id(int data)
{
	char text[256];
	struct layer_state st = {.system_gen = 1, .user_gen = 1};
	unsigned long applied = 0, pending_id = 0;
	if (safe_read_file(data, STATE_NAME, text, sizeof(text), NULL) > 0 &&
	    state_parse(text, &st) == 0)
		applied = st.applied;
	static struct request pending;
	static char req[16384];
	unsigned bad;
	if (safe_read_file(data, REQUEST_NAME, req, sizeof(req), NULL) > 0 &&
	    request_parse(req, &pending, &bad) == 0)
		pending_id = pending.id;
	return request_next_id(applied, pending_id);
}

static int confirm(const char *cmd, const char *what, bool yes)
{
	char answer[16];
	if (yes)
		return 1;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "%s: not on a terminal: pass -y to confirm\n", cmd);
		return 0;
	}
	printf("%s at the next boot. Continue? [y/N] ", what);
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin))
		return 0;
	return answer[0] == 'y' || answer[0] == 'Y';
}

static int store(const char *cmd, struct request *req, bool reboot_now)
{
	static char text[16384];
	char why[96];
	int data = safe_base(STRATA_DATA_DIR);
	if (data < 0) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", cmd, STRATA_REQUEST_FILE,
			strerror(-data));
		return 1;
	}
	req->id = next_request_id(data);
	int n = request_format(req, text, sizeof(text));
	if (n < 0) {
		close(data);
		fprintf(stderr, "%s: the request is too large\n", cmd);
		return 1;
	}
	/* whatever sits at the request's names (a FIFO, a directory, a symlink) is replaced */
	int r = safe_write_file(data, REQUEST_NAME, text, (size_t)n, true);
	if (r == -ENOSPC && safe_remove(data, STRATA_RESERVE_NAME) == 0) {
		/* a full flash: the space strata held back for this, taken back at the next boot */
		sync();
		r = safe_write_file(data, REQUEST_NAME, text, (size_t)n, true);
		if (r == 0)
			fprintf(stderr,
				"%s: the data flash is full; used the space held back for "
				"a request\n",
				cmd);
	}
	close(data);
	if (r < 0) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", cmd, STRATA_REQUEST_FILE,
			safe_strerror(r, 0, why, sizeof(why)));
		return 1;
	}
	/*
	 * Durable before it is reported: fsync covers the file on real flash;
	 * an MTD emulated over a block device (block2mtd) keeps its writes in
	 * that device's page cache until a global sync.
	 */
	sync();
	printf("%s: %s scheduled for the next boot (request %lu)\n", cmd,
	       request_kind_name(req->kind), req->id);
	if (reboot_now) {
		execl("/sbin/reboot", "reboot", (char *)NULL);
		reboot(RB_AUTOBOOT);
		fprintf(stderr, "%s: cannot reboot: %s\n", cmd, strerror(errno));
		return 1;
	}
	return 0;
}

/* what reset, revert and the button's resets record: one request (16 KiB) at a time */
static struct request req;

/* Records req, a reset with its -k paths, with the keep list. */
static int record_reset(const char *cmd, unsigned flags)
{
	static char keep[8192];
	unsigned bad_line;
	if (safe_read_root_file(STRATA_KEEP_LIST, keep, sizeof(keep), NULL) >= 0 &&
	    request_add_keep_list(&req, keep, &bad_line) < 0) {
		fprintf(stderr, "%s: %s line %u is not an absolute path inside the root\n", cmd,
			STRATA_KEEP_LIST, bad_line);
		return 1;
	}
	if (check_persistent(cmd) < 0)
		return 1;
	if (req.kind == REQ_RESET_USER && stack_levels() == 1) {
		fprintf(stderr,
			"%s: this system runs the system overlay alone (no user overlay): "
			"there is no user layer to drop; --full drops the system layer\n",
			cmd);
		return 1;
	}
	if (!confirm(cmd,
		     req.kind == REQ_RESET_FULL
			 ? "All changes (system and user layer) will be erased"
			 : "All changes in the user layer will be erased",
		     flags & RESET_YES)) {
		printf("%s: nothing done\n", cmd);
		return 1;
	}
	return store(cmd, &req, flags & RESET_REBOOT);
}

int reset_request(const char *cmd, enum req_kind kind, unsigned flags)
{
	memset(&req, 0, sizeof(req));
	req.kind = kind;
	return record_reset(cmd, flags);
}

static int cancel_request(const char *cmd)
{
	if (unlink(STRATA_REQUEST_FILE) < 0) {
		if (errno == ENOENT) {
			printf("%s: no pending request\n", cmd);
			return 0;
		}
		fprintf(stderr, "%s: cannot remove '%s': %s\n", cmd, STRATA_REQUEST_FILE,
			strerror(errno));
		return 1;
	}
	sync();
	printf("%s: pending request withdrawn\n", cmd);
	return 0;
}

int cmd_reset(int argc, char **argv)
{
	const char *cmd = argv[0];
	unsigned flags = 0;
	bool cancel = false;
	/* OpenWrt's names (fstools, base-files): a full reset, flags as getopt takes them */
	bool alias = strcmp(cmd, "reset") != 0;
	const char *expected =
	    alias ? "-y, -r or -k PATH" : "--user, --full, --cancel, -y, -r or -k PATH";
	if (strcmp(cmd, "jffs2mark") == 0)
		flags |= RESET_YES; /* fstools marks the flash for a reset without asking */

	memset(&req, 0, sizeof(req));
	req.kind = alias ? REQ_RESET_FULL : REQ_NONE;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--user") == 0 && !alias) {
			req.kind = REQ_RESET_USER;
		} else if (strcmp(a, "--full") == 0) {
			req.kind = REQ_RESET_FULL;
		} else if (strcmp(a, "--cancel") == 0 && !alias) {
			cancel = true;
		} else if (a[0] == '-' && a[1] && strspn(a + 1, "yr") == strlen(a + 1)) {
			/* -y, -r, and as OpenWrt's getopt takes them, -yr, -ry */
			flags |=
			    (strchr(a, 'y') ? RESET_YES : 0) | (strchr(a, 'r') ? RESET_REBOOT : 0);
		} else if (strcmp(a, "-k") == 0 && i + 1 < argc) {
			int r = request_add_keep(&req, argv[++i]);
			if (r == -E2BIG)
				return cmd_usage_error(cmd, "at most " STR(REQ_MAX_KEEP) " paths",
						       "cannot keep '%s': too many paths", argv[i]);
			if (r < 0)
				return cmd_usage_error(cmd,
						       "an absolute path inside the root (no '..')",
						       "cannot keep '%s'", argv[i]);
		} else if (strcmp(a, "-k") == 0) {
			return cmd_usage_error(cmd, "-k PATH", "-k without a PATH");
		} else {
			return cmd_usage_error(cmd, expected, "unknown argument '%s'", a);
		}
	}
	if (cancel)
		return cancel_request(cmd);
	if (req.kind == REQ_NONE)
		return cmd_usage_error(cmd, "--user, --full or --cancel", "what to reset?");
	return record_reset(cmd, flags);
}

int cmd_revert(int argc, char **argv)
{
	const char *cmd = "strata revert";
	enum req_layer layer = LAYER_USER;
	bool yes = false, reboot_now = false;

	memset(&req, 0, sizeof(req));
	req.kind = REQ_REVERT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--system") == 0) {
			layer = LAYER_SYSTEM;
		} else if (strcmp(a, "-y") == 0) {
			yes = true;
		} else if (strcmp(a, "-r") == 0) {
			reboot_now = true;
		} else if (a[0] == '-') {
			return cmd_usage_error(argv[0], "--system, -y, -r or a PATH",
					       "unknown argument '%s'", a);
		} else if (req.n_revert == REQ_MAX_REVERT) {
			return cmd_usage_error(argv[0],
					       "at most " STR(REQ_MAX_REVERT) " paths at once",
					       "too many paths");
		} else if (path_normalize(a, req.revert[req.n_revert].path, REQ_PATH_MAX) < 0) {
			return cmd_usage_error(
			    argv[0], "an absolute path inside the root (no '..', not '/')",
			    "'%s' is not an absolute path inside the root", a);
		} else {
			req.n_revert++;
		}
	}
	if (req.n_revert == 0)
		return cmd_usage_error(argv[0], "one PATH or more", "which paths?");
	/* without a user overlay, / is the system layer: that is where the changes are */
	if (layer == LAYER_USER && stack_levels() == 1)
		layer = LAYER_SYSTEM;
	for (size_t i = 0; i < req.n_revert; i++)
		req.revert[i].layer = layer;
	if (check_persistent(cmd) < 0)
		return 1;
	if (!confirm(cmd, "Changes to these paths will be dropped", yes)) {
		printf("%s: nothing done\n", cmd);
		return 1;
	}
	return store(cmd, &req, reboot_now);
}
