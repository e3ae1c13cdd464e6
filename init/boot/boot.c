// SPDX-License-Identifier: GPL-2.0-only
/* PID 1 boot sequence: API filesystems, modules, flash, layers, overlay, switch_root. */
#include "log.h"
#include "modules.h"
#include "flash.h"
#include "ovl.h"
#include "request.h"
#include "safefs.h"
#include "store.h"
#include "boot.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

struct api_mount {
	const char *source, *target, *fstype;
	unsigned long flags;
	const char *data;
};

/* what PID 1 mounts before anything else; /run holds the boot record */
static const struct api_mount api_mounts[] = {
    {"proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL},
    {"sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL},
    {"devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755"},
    {"tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=10%"},
};

/*
 * What the phases hand on to each other, and the spans of the phases that
 * run beside the others (the modules, the verity worker, the button): the
 * runner records those.
 */
struct boot_run {
	struct data_source data, user;
	int upper_err; /* 0: the flash uppers are mounted; else why they are not */
	char upper_why[256];
	bool have_run; /* /run is mounted: the boot record can be written */
	struct {
		const char *name;
		uint64_t start_ns, end_ns;
	} spans[2];
	unsigned n_spans;
};

static void add_span(struct boot_run *run, const char *name, uint64_t start_ns, uint64_t end_ns)
{
	if (run->n_spans < ARRAY_SIZE(run->spans))
		run->spans[run->n_spans++] = (typeof(run->spans[0])){name, start_ns, end_ns};
}

static int phase_api_mounts(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(api_mounts); i++) {
		const struct api_mount *m = &api_mounts[i];
		mkdir(m->target, 0755);
		if (mount(m->source, m->target, m->fstype, m->flags, m->data) < 0 &&
		    errno != EBUSY) {
			int err = errno;
			snprintf(why, len, "cannot mount %s on %s: %s", m->fstype, m->target,
				 strerror(err));
			return -err;
		}
	}
	/* /proc now tells the console log level; opens kmsg/console if the initramfs had none */
	log_open();
	int r = mkdir_p(STRATA_RUN_DIR, 0755);
	if (r < 0)
		log_error_errno(r, "cannot create %s: %m", STRATA_RUN_DIR);
	run->have_run = true;
	return 0;
}

static void report_rejected_key(void *arg, const char *key, const char *why)
{
	struct strata_ctx *ctx = arg;
	ctx->rec.cmdline_rejected++;
	log_warn("ignoring kernel command line key '%s': %s", key, why);
}

static int phase_cmdline(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)run, (void)why, (void)len;
	ssize_t n = read_file("/proc/cmdline", ctx->cmdline, sizeof(ctx->cmdline));
	if (n < 0) {
		log_error_errno((int)n, "cannot read /proc/cmdline: %m; using built-in defaults");
		ctx->cmdline[0] = '\0';
	}
	opts_parse_cmdline(&ctx->opts, ctx->cmdline, report_rejected_key, ctx);
	log_set_debug(ctx->opts.debug);
	ctx->user_separate = ctx->opts.user_part[0] != '\0';
	ctx->rec.stack_levels = ctx->opts.stack_levels;
	ctx->rec.stack_collapsed = ctx->opts.stack_collapsed;
	memcpy(ctx->rec.slot, ctx->opts.slot, sizeof(ctx->rec.slot));
	if (ctx->opts.slot[0])
		log_info("booted from slot %s", ctx->opts.slot);
	return 0;
}

static void report_bad_module_line(void *arg, unsigned line, int err)
{
	(void)arg;
	log_error_errno(err, "%s: bad entry %u: %m", STRATA_MODULE_LIST, line);
}

/*
 * The modules load on threads of their own while the main thread finds the
 * lowers and the verity worker measures them: a lower's device is there as
 * soon as its own modules are (the NOR root after phram and mtdblock), long
 * before the upper's file system or overlayfs are.
 */
static struct {
	struct modplan plan;
	pthread_t thread;
	bool threaded;
	uint64_t start_ns, end_ns; /* end_ns: 0 while loading */
} mods;

static void *modules_thread(void *arg)
{
	(void)arg;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	modplan_run(&mods.plan, STRATA_MODULE_DIR, cpus > 1 ? (unsigned)cpus : 1);
	__atomic_store_n(&mods.end_ns, now_boottime_ns(), __ATOMIC_RELEASE);
	return NULL;
}

/* 0 while the modules are loading, else when they were done */
static uint64_t modules_done_ns(void)
{
	return __atomic_load_n(&mods.end_ns, __ATOMIC_ACQUIRE);
}

static int phase_modules(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)run;
	static char list[8192], deps[8192];
	struct modplan *plan = &mods.plan;
	mods.start_ns = now_boottime_ns();
	ssize_t n = read_file(STRATA_MODULE_LIST, list, sizeof(list));
	if (n == -ENOENT) {
		mods.end_ns = now_boottime_ns();
		return 0;
	}
	if (n < 0) {
		snprintf(why, len, "cannot read %s: %s", STRATA_MODULE_LIST, strerror((int)-n));
		return (int)n;
	}
	if (read_file(STRATA_MODULE_DEPS, deps, sizeof(deps)) < 0)
		deps[0] = '\0'; /* without it, modules load one after another */
	if (modplan_parse(plan, list, deps[0] ? deps : NULL, report_bad_module_line, NULL) < 0)
		log_error("%s lists more than %d modules; loading the first %d", STRATA_MODULE_LIST,
			  MODPLAN_MAX, MODPLAN_MAX);
	if (!deps[0])
		for (size_t i = 1; i < plan->n; i++)
			plan->e[i].deps = (UINT64_C(1) << i) - 1;
	/* the kernel has applied the command line's parameters of its built-in modules, but
	   for the phram and block2mtd devices before the last */
	static char builtin[2048];
	if (read_file(STRATA_MODULE_BUILTIN, builtin, sizeof(builtin)) > 0)
		modplan_mark_builtin(plan, builtin);
	plan->builtin_apply = builtin_params_apply;
	for (size_t i = 0; i < plan->n; i++)
		if ((plan->e[i].builtin ? cmdline_builtin_dropped : cmdline_module_params)(
			ctx->cmdline, plan->e[i].name, plan->e[i].params,
			sizeof(plan->e[i].params)) < 0)
			log_warn("parameters for module %s from the command line are too long; "
				 "some are ignored",
				 plan->e[i].name);
	mods.threaded = thread_start(&mods.thread, 64 * 1024, modules_thread, NULL);
	if (!mods.threaded)
		modules_thread(NULL); /* no thread: loaded here, then the rest */
	return 0;
}

/* waits for module name (the upper's file system), not for all of them */
static int modules_wait(const char *name)
{
	return mods.threaded ? modplan_wait(&mods.plan, name) : 0;
}

static void modules_finish(struct boot_run *run)
{
	static bool finished;
	if (finished)
		return;
	finished = true;
	if (mods.threaded)
		pthread_join(mods.thread, NULL);
	mods.threaded = false;
	add_span(run, "modules", mods.start_ns, modules_done_ns());
	for (size_t i = 0; i < mods.plan.n; i++) {
		const struct modplan_entry *e = &mods.plan.e[i];
		if (e->state == MOD_FAILED && e->builtin)
			log_error_errno(e->err, "cannot apply %s to built-in module %s: %m",
					e->params, e->name);
		else if (e->state == MOD_FAILED)
			log_error_errno(e->err, "cannot load module %s%s%s: %m", e->name,
					e->params[0] ? " " : "", e->params);
		else if (e->state == MOD_SKIPPED)
			log_error("module %s not loaded: it needs %s, which failed", e->name,
				  mods.plan.e[e->err].name);
		else
			log_debug("loaded %s %s in %llu us", e->name, e->params,
				  (unsigned long long)(e->ns / 1000u));
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

/*
 * Why a partition or volume is missing (err -ENOENT) or unusable, with the
 * names there are: the reason the phase that decides logs, once. role:
 * "root", "data", "user" (then also the command line key that selects
 * another), or NULL for an add-on layer.
 */
static void not_found(char *why, size_t len, const char *role, const char *name, int err,
		      unsigned waited_ms)
{
	char names[512];
	flash->names(names, sizeof(names));
	/* "%.0u" prints nothing for 0 */
	snprintf(why, len, "%s %s '%s' %s%s%s%.0u%s; %s found: %s%s%s%s", role ? role : "add-on",
		 role ? flash->unit : "layer", name,
		 err == -ENOENT ? "not found" : "cannot be set up: ",
		 err == -ENOENT ? flash->where : strerror(-err), waited_ms ? " after " : "",
		 waited_ms, waited_ms ? " ms" : "", flash->table, names, role ? " (strata." : "",
		 role ? role : "", role ? "= selects another)" : "");
}

/*
 * Looks name up until it is there as a block device, or wait_ms after the
 * modules were loaded (the flash may still be probing): again each time a
 * module is in (its devices are there when its init returns), and every
 * 10 ms. -ENODEV: named, but no block device (yet).
 */
static int wait_for(int (*lookup)(const char *, char *, size_t), const char *name, char *dev,
		    size_t len, unsigned wait_ms)
{
	for (;;) {
		struct stat st;
		int r = lookup(name, dev, len);
		if (r == 0 && (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode)))
			r = -ENODEV;
		uint64_t done = modules_done_ns();
		if (r == 0 || r == -EINVAL || r == -ENAMETOOLONG ||
		    (done && now_boottime_ns() >= done + (uint64_t)wait_ms * 1000000u))
			return r;
		if (done)
			sleep_ms(10);
		else
			modplan_wait_change(&mods.plan, 10);
	}
}

/*
 * An upper's partition or volume (created in the free space on flash that
 * creates them). Returns 0, or -ENODEV (missing) or another -errno with why.
 */
static int find_upper(const char *role, const char *name, unsigned percent, unsigned wait_ms,
		      struct data_source *ds, char *why, size_t len)
{
	/* where uppers are partitions, a lower's lookup finds them too */
	int r = flash->creates_upper
		    ? 0
		    : wait_for(flash->lower, name, ds->dev, sizeof(ds->dev), wait_ms);
	if (r == 0) {
		ds->fstype = flash->fstype;
		snprintf(ds->name, sizeof(ds->name), "%s", name);
		r = flash->upper(name, percent, ds);
	}
	if (r < 0)
		not_found(why, len, role, name, r, 0);
	return r == -ENOENT ? -ENODEV : r;
}

/*
 * The partitions' lookup, while the modules load: the root (missing rootwait
 * ms after the modules are loaded: the boot stops), then the add-ons (there
 * once the modules are; optional ones may be missing).
 */
static int find_lowers(struct strata_ctx *ctx, char *why, size_t len)
{
	struct lower_layer *base = &ctx->lowers[ctx->n_lowers - 1];
	char part[64]; /* the layer's partition in the booted slot */
	int r = opts_slot_part(&ctx->opts, base->name, part, sizeof(part));
	if (r == 0)
		r = wait_for(flash->lower, part, base->dev, sizeof(base->dev),
			     ctx->opts.rootwait_ms);
	if (r == -EINVAL) {
		snprintf(why, len,
			 "the flash's partition table is malformed; cannot look up partition '%s'",
			 part);
		return r;
	}
	if (r < 0) {
		/* -ENODEV: there, but no block device (ubiblock) appeared */
		not_found(why, len, "root", part, r, ctx->opts.rootwait_ms);
		return r;
	}
	for (size_t i = 0; i + 1 < ctx->n_lowers; i++) {
		struct lower_layer *l = &ctx->lowers[i];
		r = opts_slot_part(&ctx->opts, l->name, part, sizeof(part));
		if (r == 0 && (r = wait_for(flash->lower, part, l->dev, sizeof(l->dev), 0)) == 0)
			continue;
		l->dev[0] = '\0';
		not_found(why, len, NULL, part, r, 0);
		if (!l->optional)
			return r;
		log_warn("optional %s; booting without it", why);
		why[0] = '\0';
	}
	return 0;
}

/*
 * The data upper and the user upper, once the modules are loaded. Returns 0,
 * or -errno with why: the upper phase decides what a missing upper means.
 */
static int find_uppers(struct strata_ctx *ctx, struct data_source *data, struct data_source *user,
		       char *why, size_t len)
{
	unsigned wait_ms = ctx->opts.rootwait_ms;
	why[0] = '\0';
	/* with a separate user volume the free space is shared out */
	unsigned percent = ctx->user_separate ? 100 - CONFIG_STRATA_USER_PART_PERCENT : 100;
	int r = find_upper("data", ctx->opts.data_part, percent, wait_ms, data, why, len);
	if (r == 0 && ctx->user_separate)
		r = find_upper("user", ctx->opts.user_part, 100, wait_ms, user, why, len);
	return r;
}

/*
 * The object store holds the lower's file contents; fs-verity is enabled on
 * objects that lack it (first boot of a metadata image). Their digests are
 * pinned by the verified metadata layer, so this is no trust on first use: a
 * wrong object gets a wrong digest and overlayfs refuses it at open (EIO).
 * A stamp with the metadata image's digest lets later boots skip the walk
 * (without verification there is no such digest: every boot walks).
 */
static int phase_store(struct strata_ctx *ctx, struct boot_run *run, char *whyout, size_t len)
{
	char failed[160], why[96], meta_hex[FSVERITY_HEX_SIZE] = "";
	struct store_stats st;
	const struct manifest_layer *meta = manifest_find(&ctx->manifest, ctx->opts.root_part);
	if (CONFIG_STRATA_VERITY && meta) /* verified before the lower was mounted */
		fsverity_to_hex(meta->digest, meta_hex);
	if (run->upper_err < 0) {
		snprintf(whyout, len,
			 "object store '%s' unavailable: the data partition is not mounted",
			 CONFIG_STRATA_STORE_DIR);
		return -ENODEV;
	}
	uint64_t t0 = now_boottime_ns();
	char stray[160] = "";
	int r = store_enable_verity(STRATA_DATA_DIR, CONFIG_STRATA_STORE_DIR, "strata.verity",
				    meta_hex[0] ? meta_hex : NULL, &st, failed, sizeof(failed),
				    stray, sizeof(stray));
	unsigned long long ms = (now_boottime_ns() - t0) / 1000000u;
	if (r == -EIO)
		log_error("object store: cannot enable fs-verity on %u of %u objects (first: %s); "
			  "reading them fails",
			  st.failed, st.objects, failed);
	else if (r < 0) {
		snprintf(whyout, len, "object store %s unusable: %s: %s", STRATA_STORE, failed,
			 safe_strerror(r, st.found, why, sizeof(why)));
		return r;
	}
	if (st.stray)
		log_warn("object store: %u stray entr%s left alone, never opened (first: %s, %s)",
			 st.stray, st.stray == 1 ? "y" : "ies", stray,
			 safe_kind_name(st.stray_kind));
	if (st.skipped)
		log_info("object store: fs-verity already enabled for this metadata image");
	else
		log_notice("object store: fs-verity enabled on %u of %u objects in %llu ms",
			   st.enabled, st.objects, ms);
	bootrec_add_layer(&ctx->rec, "data-only", STRATA_STORE, flash->fstype, STRATA_STORE,
			  "verity");
	return 0;
}

/*
 * The add-on lowers the build listed, top first, then the base root: the
 * system overlay's lower stack.
 */
static int plan_lowers(struct strata_ctx *ctx, char *why, size_t whylen)
{
	static char text[1024];
	unsigned bad = 0;
	int n = 0;
	ssize_t len = read_file(STRATA_LOWERS_FILE, text, sizeof(text));
	if (len >= 0) {
		n = lowers_parse(text, ctx->lowers, LOWERS_MAX - 1, &bad);
		if (n < 0) {
			snprintf(why, whylen,
				 "%s line %u: expected \"NAME [optional]\" (NAME of [a-z0-9_-], "
				 "unique, at most %d add-ons)",
				 STRATA_LOWERS_FILE, bad, LOWERS_MAX - 1);
			return n;
		}
	} else if (len != -ENOENT) {
		snprintf(why, whylen, "cannot read %s: %s", STRATA_LOWERS_FILE,
			 strerror((int)-len));
		return (int)len;
	}
	struct lower_layer *base = &ctx->lowers[n];
	memset(base, 0, sizeof(*base));
	snprintf(base->name, sizeof(base->name), "%s", ctx->opts.root_part);
	ctx->n_lowers = (size_t)n + 1;
	return 0;
}

static int phase_partitions(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)run;
	int r = plan_lowers(ctx, why, len);
	return r < 0 ? r : find_lowers(ctx, why, len);
}

/* every lower is measured before anything of it is mounted: here, beside the modules */
static int phase_verity_start(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)run;
	return verity_start(ctx, why, len);
}

/*
 * The uppers are mounted while the worker may still be measuring the lowers
 * and the last modules (overlayfs, the button's) still load: the upper waits
 * for its device and its file system only. A flash upper that cannot be used
 * does not stop the boot here: the layers phase applies strata.degraded=.
 */
static int phase_upper(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)why, (void)len;
	char *reason = run->upper_why;
	int r = find_uppers(ctx, &run->data, &run->user, reason, sizeof(run->upper_why));
	/*
	 * jffs2 writes nothing once fewer than a few erase blocks are free and
	 * collects garbage only when about an erase block plus 1% is dirty: what
	 * it takes to record a request on a full flash. Elsewhere 64 KiB does.
	 */
	ctx->reserve_bytes =
	    run->data.erasesize
		? (2u * run->data.erasesize + run->data.size / 100 + 4095) & ~4095ull
		: 65536u;
	if (modules_wait(flash->fstype) < 0)
		modules_finish(run); /* names the module before the mount fails for want of it */
	mkdir_p(STRATA_DATA_DIR, 0755);
	if (r == 0 &&
	    (r = upper_mount_flash(ctx, &run->data, STRATA_DATA_DIR, reason,
				   sizeof(run->upper_why))) == 0 &&
	    ctx->user_separate)
		r = upper_mount_flash(ctx, &run->user, STRATA_USERDATA_DIR, reason,
				      sizeof(run->upper_why));
	run->upper_err = r;
	return 0;
}

/* the last modules, the outcome record's partition (it may come with them), the button */
static int phase_settle(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)why, (void)len;
	uint64_t held[2] = {0, 0};
	modules_finish(run);
	outcome_load(ctx);
	ctx->button_request = button_at_boot(held);
	if (held[0])
		add_span(run, "button", held[0], held[1]);
	if (ctx->button_request == REQ_RESET_USER && ctx->opts.stack_levels == 1) {
		log_error("reset button: no user overlay for a user reset (strata.stack=system); "
			  "nothing reset");
		ctx->button_request = REQ_NONE;
	}
	return 0;
}

/* the verdicts (and dm-verity's devices, which need dm-mod) before any lower is mounted */
static int phase_verity_finish(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	uint64_t span[2];
	int r = verity_finish(ctx, span, why, len);
	add_span(run, "verity", span[0], span[1]);
	return r;
}

static int phase_lower(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)run;
	return mount_lowers(ctx, why, len);
}

/*
 * Requests reveal the lowers: applied only now that every lower is known
 * good. A flash upper that cannot be used (or whose layers cannot be set up)
 * is left for both uppers or neither: a degraded boot keeps everything in RAM.
 */
static int phase_layers(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	char *reason = run->upper_why;
	int r = run->upper_err;
	if (r == 0)
		r = layers_prepare(ctx, false, run->data.name, reason, sizeof(run->upper_why));
	run->upper_err = r;
	if (r < 0) {
		umount2(STRATA_USERDATA_DIR, MNT_DETACH);
		umount2(STRATA_DATA_DIR, MNT_DETACH);
		ctx->user_separate = false;
		if ((r = upper_degrade(ctx, reason, r, why, len)) < 0)
			return r;
		char tmpfs_why[256];
		if ((r = layers_prepare(ctx, true, "tmpfs", tmpfs_why, sizeof(tmpfs_why))) < 0) {
			snprintf(why, len, "cannot set up the tmpfs upper: %s", tmpfs_why);
			return r;
		}
	} else {
		upper_probe_capabilities(ctx);
	}
	outcome_store(ctx);
	return 0;
}

static int phase_overlay(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)run;
	return mount_layers(ctx, why, len);
}

/* a failure leaves the initramfs intact: its shell can read what was assembled */
static int phase_switch_root(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)run;
	char what[320]; /* a strata.init path of up to 127 bytes and why it cannot run */
	snprintf(ctx->rec.init, sizeof(ctx->rec.init), "%s", ctx->opts.init);
	int r = switch_root_into(ctx, STRATA_NEWROOT, what, sizeof(what));
	if (r < 0)
		snprintf(why, len, "switch_root into %s: %s", STRATA_NEWROOT, what);
	return r;
}

/* the console of the new root, and the old generations deleted behind the new init */
static int phase_handover(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)ctx, (void)run, (void)why, (void)len;
	int r = attach_console();
	if (r < 0)
		log_warn_errno(r, "cannot reopen /dev/console in the new root: %m");
	log_open();
	layers_discard_trash();
	return 0;
}

/* returns only when the new init cannot be run */
static int phase_exec(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len)
{
	(void)run;
	log_info("exec %s after %llu ms", ctx->opts.init,
		 (unsigned long long)((ctx->rec.exec_ns - ctx->rec.init_start_ns) / 1000000u));
	char *const argv[] = {ctx->opts.init, NULL};
	char *const envp[] = {"HOME=/", "TERM=linux", "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL};
	execve(ctx->opts.init, argv, envp);
	int err = errno;
	snprintf(why, len, "cannot exec '%s': %s", ctx->opts.init, strerror(err));
	return -err;
}

enum {
	PH_TIMED = 1,  /* recorded in boot.json's phases from start to end */
	PH_RECORD = 2, /* the boot record is complete and written before the phase runs */
	PH_VERITY = 4, /* only with CONFIG_STRATA_VERITY */
	PH_STORE = 8,  /* only with CONFIG_STRATA_STORE_DIR */
};

static const struct phase {
	const char *name;
	int (*run)(struct strata_ctx *ctx, struct boot_run *run, char *why, size_t len);
	unsigned flags;
} phases[] = {
    /* SIGCHLD stays default so waitpid works; PID 1 gets no default-fatal signals anyway */
    {"api-mounts", phase_api_mounts, PH_TIMED},
    {"cmdline", phase_cmdline, PH_TIMED},
    {"modules", phase_modules, 0}, /* on threads of their own: recorded when they are in */
    {"partitions", phase_partitions, PH_TIMED},
    {"verity", phase_verity_start, PH_VERITY}, /* a worker: recorded at its verdicts */
    {"upper", phase_upper, PH_TIMED},
    {"settle", phase_settle, 0}, /* the button a phase of its own only when held */
    {"verity", phase_verity_finish, PH_VERITY},
    {"lower", phase_lower, PH_TIMED},
    {"layers", phase_layers, PH_TIMED},
    {"store", phase_store, PH_TIMED | PH_STORE},
    {"overlay", phase_overlay, PH_TIMED},
    {"switch-root", phase_switch_root, PH_TIMED},
    {"handover", phase_handover, 0},
    {"exec", phase_exec, PH_RECORD},
};

/*
 * The phases in order. The runner alone records them; a phase returns 0 or
 * -errno with why, and the runner records which phase stopped the boot and
 * why (in boot.json once /run is there), then applies the fatal policy once.
 */
void boot_main(struct strata_ctx *ctx)
{
	struct boot_run run = {0};
	char why[512];
	for (size_t i = 0; i < ARRAY_SIZE(phases); i++) {
		const struct phase *p = &phases[i];
		if (((p->flags & PH_VERITY) && !CONFIG_STRATA_VERITY) ||
		    ((p->flags & PH_STORE) && sizeof(CONFIG_STRATA_STORE_DIR) <= 1))
			continue;
		if (p->flags & PH_RECORD) {
			ctx->rec.exec_ns = now_boottime_ns();
			boot_record_close(ctx);
			boot_record_write(ctx);
		}
		if (p->flags & PH_TIMED)
			bootrec_phase_begin(&ctx->rec, p->name, now_boottime_ns());
		log_debug("phase %s", p->name);
		why[0] = '\0';
		int r = p->run(ctx, &run, why, sizeof(why));
		if (p->flags & PH_TIMED)
			bootrec_phase_end(&ctx->rec, now_boottime_ns());
		for (unsigned s = 0; s < run.n_spans; s++)
			bootrec_phase_add(&ctx->rec, run.spans[s].name, run.spans[s].start_ns,
					  run.spans[s].end_ns);
		run.n_spans = 0;
		if (r >= 0)
			continue;
		if (!why[0])
			snprintf(why, sizeof(why), "phase %s: %s", p->name, strerror(-r));
		ctx->rec.fatal_phase = p->name;
		snprintf(ctx->rec.fatal_reason, sizeof(ctx->rec.fatal_reason), "%s", why);
		if (run.have_run)
			boot_record_write(ctx);
		outcome_store_failed(ctx, why);
		fatal(ctx, "%s", why);
	}
	fatal(ctx, "the phase table ends without an exec");
}
