// SPDX-License-Identifier: GPL-2.0-only
/* PID 1 boot sequence: API filesystems, modules, flash, layers, overlay, switch_root. */
#include "log.h"
#include "modules.h"
#include "mtd.h"
#include "ovl.h"
#include "strata.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct api_mount {
	const char *source, *target, *fstype;
	unsigned long flags;
	const char *data;
};

/* what PID 1 mounts before anything else; /run holds the boot record */
static const struct api_mount api_mounts[] = {
	{ "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755" },
	{ "tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=10%" },
};

void phase_begin(struct strata_ctx *ctx, const char *name)
{
	bootrec_phase_begin(&ctx->rec, name, now_boottime_ns());
	log_debug("phase %s", name);
}

void phase_end(struct strata_ctx *ctx)
{
	bootrec_phase_end(&ctx->rec, now_boottime_ns());
}

void boot_record_write(struct strata_ctx *ctx)
{
	static char json[8192];
	int n = bootrec_format_json(&ctx->rec, json, sizeof(json));
	if (n < 0) {
		log_error_errno(n, "boot record does not fit in %zu bytes", sizeof(json));
		return;
	}
	int r = write_file_atomic(STRATA_BOOT_RECORD, json, (size_t)n, false);
	if (r < 0)
		log_error_errno(r, "cannot write %s: %m", STRATA_BOOT_RECORD);
}

static void mount_api_filesystems(struct strata_ctx *ctx)
{
	for (size_t i = 0; i < ARRAY_SIZE(api_mounts); i++) {
		const struct api_mount *m = &api_mounts[i];
		mkdir(m->target, 0755);
		if (mount(m->source, m->target, m->fstype, m->flags, m->data) < 0 && errno != EBUSY)
			fatal(ctx, "cannot mount %s on %s: %m", m->fstype, m->target);
	}
	log_open(); /* devtmpfs now provides the real /dev/kmsg and /dev/console */
	if (mkdir_p(STRATA_RUN_DIR, 0755) < 0)
		log_error("cannot create %s: %m", STRATA_RUN_DIR);
}

static void report_rejected_key(void *arg, const char *key, const char *why)
{
	struct strata_ctx *ctx = arg;
	ctx->rec.cmdline_rejected++;
	log_warn("ignoring kernel command line key '%s': %s", key, why);
}

static void parse_cmdline(struct strata_ctx *ctx)
{
	ssize_t n = read_file("/proc/cmdline", ctx->cmdline, sizeof(ctx->cmdline));
	if (n < 0) {
		log_error_errno((int)n, "cannot read /proc/cmdline: %m; using built-in defaults");
		ctx->cmdline[0] = '\0';
	}
	opts_parse_cmdline(&ctx->opts, ctx->cmdline, report_rejected_key, ctx);
	log_set_debug(ctx->opts.debug);
}

static void report_bad_module_line(void *arg, unsigned line, int err)
{
	(void)arg;
	log_error_errno(err, "%s: bad entry %u: %m", STRATA_MODULE_LIST, line);
}

static void load_modules(struct strata_ctx *ctx)
{
	static char list[8192], deps[8192];
	static struct modplan plan;
	ssize_t n = read_file(STRATA_MODULE_LIST, list, sizeof(list));
	if (n == -ENOENT)
		return;
	if (n < 0)
		fatal(ctx, "cannot read %s: %s", STRATA_MODULE_LIST, strerror((int)-n));
	if (read_file(STRATA_MODULE_DEPS, deps, sizeof(deps)) < 0)
		deps[0] = '\0'; /* without it, modules load one after another */
	if (modplan_parse(&plan, list, deps[0] ? deps : NULL, report_bad_module_line, NULL) < 0)
		log_error("%s lists more than %d modules; loading the first %d", STRATA_MODULE_LIST,
			  MODPLAN_MAX, MODPLAN_MAX);
	if (!deps[0])
		for (size_t i = 1; i < plan.n; i++)
			plan.e[i].deps = (UINT64_C(1) << i) - 1;
	for (size_t i = 0; i < plan.n; i++)
		if (cmdline_module_params(ctx->cmdline, plan.e[i].name, plan.e[i].params,
					  sizeof(plan.e[i].params)) < 0)
			log_warn("parameters for module %s from the command line are too long; "
				 "some are ignored",
				 plan.e[i].name);

	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	modplan_run(&plan, STRATA_MODULE_DIR, cpus > 1 ? (unsigned)cpus : 1);

	for (size_t i = 0; i < plan.n; i++) {
		const struct modplan_entry *e = &plan.e[i];
		if (e->state == MOD_FAILED)
			log_error_errno(e->err, "cannot load module %s%s%s: %m", e->name,
					e->params[0] ? " " : "", e->params);
		else if (e->state == MOD_SKIPPED)
			log_error("module %s not loaded: it needs %s, which failed", e->name,
				  plan.e[e->err].name);
		else
			log_debug("loaded %s %s in %llu us", e->name, e->params,
				  (unsigned long long)(e->ns / 1000u));
	}
}

/* Waits up to rootwait_ms for the named MTD partitions to appear in /proc/mtd. */
static int find_partitions(struct strata_ctx *ctx, struct mtd_part *root, struct mtd_part *data,
			   int *data_err)
{
	static char text[4096];
	uint64_t deadline = now_boottime_ns() + (uint64_t)ctx->opts.rootwait_ms * 1000000u;
	int r;

	for (;;) {
		ssize_t n = read_file("/proc/mtd", text, sizeof(text));
		if (n < 0)
			text[0] = '\0';
		r = mtd_find(text, ctx->opts.root_part, root);
		*data_err = mtd_find(text, ctx->opts.data_part, data);
		if ((r == 0 && *data_err == 0) || r == -EINVAL || now_boottime_ns() >= deadline)
			break;
		struct timespec ts = { 0, 10 * 1000000 };
		nanosleep(&ts, NULL);
	}
	if (r < 0) {
		char names[512];
		mtd_list_names(text, names, sizeof(names));
		if (r == -EINVAL)
			fatal(ctx, "/proc/mtd is malformed; cannot look up partition '%s'",
			      ctx->opts.root_part);
		fatal(ctx,
		      "root partition '%s' not found after %u ms; MTD partitions found: %s "
		      "(strata.root= selects another)",
		      ctx->opts.root_part, ctx->opts.rootwait_ms, names);
	}
	if (*data_err < 0) {
		char names[512];
		mtd_list_names(text, names, sizeof(names));
		log_error("data partition '%s' not found; MTD partitions found: %s "
			  "(strata.data= selects another)",
			  ctx->opts.data_part, names);
	}
	return 0;
}

static void mount_lower(struct strata_ctx *ctx, const struct mtd_part *root, const char *dir)
{
	char dev[64];
	xsnprintf(dev, sizeof(dev), "/dev/mtdblock%d", root->index);
	if (mkdir_p(dir, 0755) < 0 ||
	    mount(dev, dir, "squashfs", MS_RDONLY | MS_NODEV | MS_NOSUID, NULL) < 0)
		fatal(ctx, "cannot mount squashfs lower '%s' (%s) on %s: %m", root->name, dev, dir);
	struct bootrec_layer *l = bootrec_add_layer(&ctx->rec, "lower");
	if (l) {
		snprintf(l->source, sizeof(l->source), "%s", dev);
		snprintf(l->fstype, sizeof(l->fstype), "squashfs");
		snprintf(l->mountpoint, sizeof(l->mountpoint), "%s", dir);
		snprintf(l->state, sizeof(l->state), "mounted");
	}
	log_info("lower '%s' (%s, squashfs) on %s", root->name, dev, dir);
}

static void mount_root_overlay(struct strata_ctx *ctx, const char *lower)
{
	char opts[1024];
	struct ovl_spec spec = {
		.lowers = { lower },
		.n_lowers = 1,
		.upper = STRATA_DATA_DIR "/system/upper",
		.work = STRATA_DATA_DIR "/system/work",
	};
	int r = ovl_build_options(&spec, opts, sizeof(opts));
	if (r < 0)
		fatal(ctx, "cannot build overlay options: %s", strerror(-r));
	mkdir(STRATA_NEWROOT, 0755);
	if (mount("overlay", STRATA_NEWROOT, "overlay", MS_NOATIME, opts) < 0)
		fatal(ctx, "cannot mount the root overlay (%s): %m", opts);
	struct bootrec_layer *l = bootrec_add_layer(&ctx->rec, "root");
	if (l) {
		snprintf(l->source, sizeof(l->source), "overlay");
		snprintf(l->fstype, sizeof(l->fstype), "overlay");
		snprintf(l->mountpoint, sizeof(l->mountpoint), "/");
		snprintf(l->state, sizeof(l->state), "mounted");
	}
	log_debug("root overlay: %s", opts);
}

void boot_main(struct strata_ctx *ctx)
{
	struct mtd_part root, data;
	int data_err;
	char reason[200];

	/* SIGCHLD stays default so waitpid works; PID 1 gets no default-fatal signals anyway */
	phase_begin(ctx, "api-mounts");
	mount_api_filesystems(ctx);
	phase_end(ctx);

	phase_begin(ctx, "cmdline");
	parse_cmdline(ctx);
	phase_end(ctx);

	phase_begin(ctx, "modules");
	load_modules(ctx);
	phase_end(ctx);

	phase_begin(ctx, "partitions");
	find_partitions(ctx, &root, &data, &data_err);
	phase_end(ctx);

	phase_begin(ctx, "lower");
	mount_lower(ctx, &root, STRATA_LOWER_DIR "/0");
	phase_end(ctx);

	phase_begin(ctx, "upper");
	mkdir_p(STRATA_DATA_DIR, 0755);
	if (data_err < 0) {
		snprintf(reason, sizeof(reason), "data partition '%s' not found",
			 ctx->opts.data_part);
		upper_degrade(ctx, reason, -ENODEV);
	} else {
		int r = upper_mount_flash(ctx, &data, reason, sizeof(reason));
		if (r < 0)
			upper_degrade(ctx, reason, r);
	}
	phase_end(ctx);

	phase_begin(ctx, "overlay");
	mount_root_overlay(ctx, STRATA_LOWER_DIR "/0");
	phase_end(ctx);

	phase_begin(ctx, "switch-root");
	if (switch_root_into(ctx, STRATA_NEWROOT) < 0)
		fatal(ctx, "switch_root into %s failed", STRATA_NEWROOT);
	phase_end(ctx);
	exec_init(ctx);
}
