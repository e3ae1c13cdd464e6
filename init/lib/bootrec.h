/* SPDX-License-Identifier: GPL-2.0-only */
/* The boot record: phases, layers and outcome of this boot, as /run/strata/boot.json. */
#ifndef STRATA_BOOTREC_H
#define STRATA_BOOTREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

#define BOOTREC_MAX_PHASES 16
#define BOOTREC_MAX_LAYERS 16
#define BOOTREC_MAX_VERITY 16

struct bootrec_phase {
	const char *name;
	uint64_t start_ns, end_ns; /* CLOCK_BOOTTIME */
};

struct bootrec_layer {
	const char *role; /* "lower", "upper", "root" */
	char name[32];	  /* lowers: the layer's partition / volume name */
	char source[64];
	char fstype[16];
	char mountpoint[64];
	char state[16]; /* "mounted", "tmpfs", ... */
};

/* A layer measured against the manifest (CONFIG_STRATA_VERITY). */
struct bootrec_verity {
	char layer[64];
	char device[48];
	uint64_t bytes; /* what the manifest says was measured; 0 when not listed */
	char expected[65], measured[65]; /* hex; empty: not listed / not measured */
	const char *state;		 /* "verified" or "refused" */
	const char *mode;		 /* "digest" (measured whole) or "dm-verity" (lazily) */
	const char *error;		 /* why it was refused, "" when verified */
	bool optional;
	uint64_t ns; /* time it took */
};

struct bootrec {
	uint64_t init_start_ns, exec_ns;
	uint64_t cpu_ns;      /* CPU time of PID 1 from main() to exec, all threads */
	uint64_t cpu_user_ns; /* of which in strata's own code */
	uint64_t cpu_sys_ns;  /* of which in the kernel on its behalf (module loading, mounts) */
	long maxrss_kb;
	uint64_t initramfs_bytes_before, initramfs_bytes_after;
	unsigned cmdline_rejected;
	char init[128];
	char slot[2];		   /* the A/B slot booted (strata.slot=); "" for none */
	char degraded_reason[256]; /* empty when the upper is the flash one */
	int degraded_errno;
	bool first_boot; /* the data flash was erased: the upper starts empty */
	uint64_t first_boot_format_ns;
	/* what the upper filesystem supports; -1 unknown, 0 no, 1 yes */
	int cap_rename_whiteout, cap_rename_exchange;
	unsigned system_gen, user_gen;
	unsigned stack_levels;	   /* overlay levels mounted: 1 system, 2 system + user */
	bool stack_collapsed;	   /* system+user: both layers in one overlay */
	uint64_t request_apply_ns; /* time spent applying a reset/revert request */
	char request_result[24];  /* what this boot applied: "", "reset --user", "malformed", ... */
	char request_error[200];  /* why a request could not be applied (it is retried) */
	char state_repaired[200]; /* why strata.state was rebuilt from the flash; "" if not */
	char revert_failed[400];  /* paths a revert could not revert, with why */
	char keep_failed[400];	  /* kept paths a reset could not keep, with why */
	char slot_data[24];	  /* "carried from A", "switched from A", "shared with A"; "" */
	char record_dev[48];	  /* where boot outcomes are kept; empty: nowhere */
	const char *fatal_phase;  /* the phase that stopped the boot; NULL: none did */
	char fatal_reason[512];	  /* and why */
	bool has_previous;
	struct outcome_record previous; /* the newest record before this boot */
	struct bootrec_phase phases[BOOTREC_MAX_PHASES];
	size_t n_phases;
	struct bootrec_layer layers[BOOTREC_MAX_LAYERS];
	size_t n_layers;
	struct bootrec_verity verity[BOOTREC_MAX_VERITY];
	size_t n_verity;
};

void bootrec_phase_begin(struct bootrec *rec, const char *name, uint64_t now_ns);
void bootrec_phase_end(struct bootrec *rec, uint64_t now_ns);
/*
 * A phase that ran beside others (on another thread), placed by its start:
 * call it while no phase is open.
 */
void bootrec_phase_add(struct bootrec *rec, const char *name, uint64_t start_ns, uint64_t end_ns);
/* Adds a layer; strings that do not fit are cut (the record is informational). */
void bootrec_add_layer(struct bootrec *rec, const char *role, const char *source,
		       const char *fstype, const char *mountpoint, const char *state);
/* A slot for a verity entry, zeroed; NULL when the record is full. */
struct bootrec_verity *bootrec_add_verity(struct bootrec *rec);
/* Names the layer added last. */
void bootrec_name_layer(struct bootrec *rec, const char *name);
/* Returns the length or -ENAMETOOLONG. */
int bootrec_format_json(const struct bootrec *rec, char *buf, size_t len);

#endif
