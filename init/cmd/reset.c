// SPDX-License-Identifier: GPL-2.0-only
/*
 * strata reset | revert | firstboot | factoryreset: record a request on the
 * running system; the init applies it at the next boot, before the overlays
 * are mounted. Exit status: 0 done, 1 error, 2 usage.
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

#define KEEP_LIST "/etc/strata/keep"

static const char reset_usage[] =
    "usage: strata reset --user|--full [-y] [-r] [-k PATH]...\n"
    "       strata reset --cancel\n"
    "  --user    drop the user layer: the system layer's state shows again\n"
    "  --full    drop the user and the system layer: the firmware's state shows again\n"
    "  -k PATH   keep PATH with its current content (also: one path a line in " KEEP_LIST ")\n"
    "  -y        do not ask for confirmation\n"
    "  -r        reboot now; otherwise the reset happens at the next boot\n"
    "  --cancel  withdraw a pending request\n"
    "firstboot and factoryreset are reset --full.\n";

static const char revert_usage[] =
    "usage: strata revert [--system] [-y] [-r] PATH...\n"
    "  Removes each PATH's copy, whiteout or opaque directory from the user layer\n"
    "  (--system, or a stack without a user overlay: the system layer) at the next\n"
    "  boot, so the version below shows again; a directory reverts with everything\n"
    "  in it.\n";

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
	struct layer_state st = {1, 1, 0};
	unsigned long applied = 0, pending_id = 0;
	if (safe_read_file(data, "strata.state", text, sizeof(text), NULL) > 0 &&
	    state_parse(text, &st) == 0)
		applied = st.applied;
	static struct request pending;
	static char req[16384];
	unsigned bad;
	if (safe_read_file(data, "strata.request", req, sizeof(req), NULL) > 0 &&
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
	int r = safe_write_file(data, "strata.request", text, (size_t)n, true);
	if (r == -ENOSPC && safe_remove(data, STRATA_RESERVE_NAME) == 0) {
		/* a full flash: the space strata held back for this, taken back at the next boot */
		sync();
		r = safe_write_file(data, "strata.request", text, (size_t)n, true);
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

int cmd_reset(int argc, char **argv)
{
	static struct request req;
	const char *cmd = argv[0];
	bool yes = false, reboot_now = false, cancel = false;
	/* OpenWrt's names (fstools, base-files): a full reset, flags as getopt takes them */
	bool alias = strcmp(cmd, "firstboot") == 0 || strcmp(cmd, "factoryreset") == 0 ||
		     strcmp(cmd, "jffs2reset") == 0 || strcmp(cmd, "jffs2mark") == 0;
	if (strcmp(cmd, "jffs2mark") == 0)
		yes = true; /* fstools marks the flash for a reset without asking */

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
			yes |= strchr(a, 'y') != NULL;
			reboot_now |= strchr(a, 'r') != NULL;
		} else if (strcmp(a, "-k") == 0 && i + 1 < argc) {
			int r = request_add_keep(&req, argv[++i]);
			if (r < 0) {
				fprintf(stderr, "%s: cannot keep '%s': %s\n", cmd, argv[i],
					r == -E2BIG
					    ? "too many paths"
					    : "not an absolute path inside the root (no '..')");
				return 2;
			}
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(reset_usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "%s: unknown argument '%s'\n%s", cmd, a, reset_usage);
			return 2;
		}
	}
	if (cancel) {
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
	if (req.kind == REQ_NONE) {
		fprintf(stderr, "%s: say --user or --full\n%s", cmd, reset_usage);
		return 2;
	}
	static char keep[8192];
	unsigned bad_line;
	if (safe_read_root_file(KEEP_LIST, keep, sizeof(keep), NULL) >= 0 &&
	    request_add_keep_list(&req, keep, &bad_line) < 0) {
		fprintf(stderr, "%s: %s line %u is not an absolute path inside the root\n", cmd,
			KEEP_LIST, bad_line);
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
		     yes)) {
		printf("%s: nothing done\n", cmd);
		return 1;
	}
	return store(cmd, &req, reboot_now);
}

int cmd_revert(int argc, char **argv)
{
	static struct request req;
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
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(revert_usage, stdout);
			return 0;
		} else if (a[0] == '-') {
			fprintf(stderr, "%s: unknown argument '%s'\n%s", cmd, a, revert_usage);
			return 2;
		} else {
			if (req.n_revert == REQ_MAX_REVERT) {
				fprintf(stderr, "%s: at most %d paths at once\n", cmd,
					REQ_MAX_REVERT);
				return 2;
			}
			struct revert_entry *e = &req.revert[req.n_revert];
			if (path_normalize(a, e->path, sizeof(e->path)) < 0) {
				fprintf(stderr,
					"%s: '%s' is not an absolute path inside the root "
					"(no '..', not '/')\n",
					cmd, a);
				return 2;
			}
			req.n_revert++;
		}
	}
	if (req.n_revert == 0) {
		fprintf(stderr, "%s: which paths?\n%s", cmd, revert_usage);
		return 2;
	}
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
