/* SPDX-License-Identifier: GPL-2.0-only */
/* PID 1: the boot context passed through every phase, and the phase entry points. */
#ifndef STRATA_BOOT_H
#define STRATA_BOOT_H

#include "bootrec.h"
#include "flash.h"
#include "lowers.h"
#include "manifest.h"
#include "opts.h"
#include "paths.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strata_ctx {
	struct strata_opts opts;
	struct bootrec rec;
	char cmdline[4096];
	uint64_t record_next; /* where the next boot-outcome record goes */
	/* the live generation of each upper (layers.c) */
	char system_upper[96], system_work[96], user_upper[96], user_work[96];
	unsigned powercut_steps; /* steps of applying a request so far (strata.powercut=N) */
	struct lower_layer lowers[LOWERS_MAX]; /* the system overlay's lowers, top first */
	size_t n_lowers;
	bool user_separate;	  /* the user layer is on its own partition/volume
				     (CONFIG_STRATA_USER_PART) */
	struct manifest manifest; /* expected layer digests (CONFIG_STRATA_VERITY) */
	uint32_t manifest_used;	  /* bit i: manifest.layers[i] belongs to a layer of this board */
	int button_request;	  /* enum req_kind chosen by holding the reset button at power-on */
	uint64_t reserve_bytes;	  /* held back on the data filesystem for a request (layers.c) */
};

/* boot.c */
__attribute__((noreturn)) void boot_main(struct strata_ctx *ctx);

/* bootrec_write.c: the boot record, written by the phase runner alone */
/* The record's CPU time and peak memory, from main() to now. */
void boot_record_close(struct strata_ctx *ctx);
/* Writes the boot record; failures are logged, never fatal. */
void boot_record_write(struct strata_ctx *ctx);

/*
 * The phases below return 0, or -errno with why filled: the phase runner in
 * boot.c records and logs it, and applies the fatal policy.
 */

/* overlay.c: the squashfs lowers (an optional add-on's failure leaves it out), then the overlays */
int mount_lowers(struct strata_ctx *ctx, char *why, size_t whylen);
int mount_layers(struct strata_ctx *ctx, char *why, size_t whylen);
/* The directory lower i is mounted on: lower/0 the base root, lower/N add-on N (top first). */
__attribute__((warn_unused_result)) int lower_dir(const struct strata_ctx *ctx, size_t i, char *dir,
						  size_t len);

/* upper.c: the writable flash layer */
/* Returns 0, or -errno with reason filled; the caller applies the policy. */
int upper_mount_flash(struct strata_ctx *ctx, const struct data_source *ds, const char *mountpoint,
		      char *reason, size_t reasonlen);
/*
 * The flash upper cannot be used (reason, err): strata.degraded= decides,
 * never silently. tmpfs: logged, a tmpfs is mounted, 0. emergency or reboot:
 * the fatal policy is set and -errno returned with why.
 */
int upper_degrade(struct strata_ctx *ctx, const char *reason, int err, char *why, size_t whylen);
void upper_probe_capabilities(struct strata_ctx *ctx);

/* layers.c: generations of the uppers, reset/revert requests applied offline */
int layers_prepare(struct strata_ctx *ctx, bool volatile_upper, const char *name, char *reason,
		   size_t reasonlen);
/* Deletes discarded generations in a background child that outlives the exec. */
void layers_discard_trash(void);

/* outcome.c: the boot-outcome record (CONFIG_STRATA_RECORD_PART) */
void outcome_load(struct strata_ctx *ctx);
void outcome_store(struct strata_ctx *ctx);
/* A boot that stops (why): "failed" in the record, named by its slot, for the next boot to show. */
void outcome_store_failed(struct strata_ctx *ctx, const char *why);

/* verity.c: layers measured against the manifest (CONFIG_STRATA_VERITY) */
/* Reads STRATA_MANIFEST into ctx->manifest; a missing or malformed one stops the boot. */
int verity_load_manifest(struct strata_ctx *ctx, char *why, size_t whylen);
/*
 * Starts measuring every lower found (ctx->lowers) on a worker thread: the
 * fs-verity digest of the manifest's length of the device (on every CPU),
 * or in dm-verity mode its hash tree. Only reads.
 */
int verity_start(struct strata_ctx *ctx, char *why, size_t whylen);
/*
 * Waits for the worker and gives each lower its verdict, recorded in
 * boot.json: verified (a dm-verity layer's dev becomes its /dev/dm-N), or
 * refused with one message naming the layer and why (both digests). A
 * refused add-on that the lowers file and the manifest mark optional is left
 * out (dev emptied); any other refusal stops the boot (-errno, why). A
 * manifest entry no layer of this board claimed stops it unless it is
 * optional. span: when the worker started and when the verdicts were in.
 */
int verity_finish(struct strata_ctx *ctx, uint64_t span[2], char *why, size_t whylen);
/*
 * dmverity.c: dmverity_check() checks dev's hash tree against the manifest's
 * root hash (reads only); dmverity_map() then serves dev through a
 * dm-verity device, whose path goes to out; eio: a changed block fails its
 * read whatever CONFIG_STRATA_DMVERITY_ERROR says (no reboot or panic while
 * the init checks a tree). On failure, *error says what failed ("hash tree
 * does not match the root hash", ...).
 */
int dmverity_check(const char *dev, const struct manifest_layer *m, const char **error);
int dmverity_map(const char *name, const char *dev, const struct manifest_layer *m, bool eio,
		 char *out, size_t outlen, const char **error);
/*
 * The kernel's check of the tree (with FEC, corrected), when the init's own
 * check failed: reads through the mapped device the first data block under
 * each bottom tree block, so every tree block is checked up to the root.
 * 0 or -errno (EIO: not even FEC makes it match).
 */
int dmverity_read_tree(const char *mapped, const struct manifest_layer *m);
/* Removes the dm device dmverity_map() made for name. */
void dmverity_unmap(const char *name);
/* Marks the manifest's entry for name (if any) as a layer of this board, and returns it. */
const struct manifest_layer *verity_claim(struct strata_ctx *ctx, const char *name);

/* kparams.c */
/*
 * Applies the board's parameters of a module built into the kernel (at run
 * time, through sysfs or UBI's control device). Returns 0 or -errno.
 */
int builtin_params_apply(const char *module, const char *params);

/* switchroot.c */
/* 0 when '/' is ramfs or tmpfs (the initramfs), -EINVAL when not, -errno; *fstype: its type. */
int root_is_initramfs(uint64_t *fstype);
/*
 * Checks everything (the new root, '/', strata.init inside the new root),
 * moves the API filesystems and the new root onto '/', chroots, and only then
 * frees the initramfs. Returns 0, or -errno with why filled; on every failure
 * before the chroot what was moved is put back and the initramfs is whole.
 */
int switch_root_into(struct strata_ctx *ctx, const char *newroot, char *why, size_t whylen);

/* fatal.c: log the reason, then shell, hang or reboot as configured; never returns */
__attribute__((noreturn, format(printf, 2, 3))) void fatal(struct strata_ctx *ctx, const char *fmt,
							   ...);
/* No policy to consult: the emergency shell, started again whenever it exits, else a hang. */
__attribute__((noreturn)) void emergency_shell_or_hang(const char *reason);

/*
 * button.c: the reset button held at power-on; returns the enum req_kind it
 * selects. held: when it was found held and when it was released (0, 0 when not).
 */
int button_at_boot(uint64_t held[2]);

#endif
