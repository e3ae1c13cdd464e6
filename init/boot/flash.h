/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Flash back ends: where a board's layers live and what its uppers are. One
 * row per kind of flash (flash.c); the board's Kconfig choice picks the row
 * the init uses, the others are not linked in.
 */
#ifndef STRATA_FLASH_H
#define STRATA_FLASH_H

#include "flashid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The writable flash layer: a partition or volume and how it is mounted. */
struct data_source {
	const char *fstype; /* the back end's upper filesystem */
	char name[64];	    /* partition or volume name */
	char src[80];	    /* mount source: mtdN, ubi0:NAME, /dev/vdaN */
	char dev[48];	    /* device read to identify the contents */
	uint64_t size;	    /* MTD only: scanned erase block by erase block */
	uint32_t erasesize;
	bool created; /* UBI volume created by this boot */
};

struct flash_backend {
	const char *name;	    /* CONFIG_STRATA_FLASH: "mtd+jffs2", ... */
	const char *fstype;	    /* of the uppers */
	enum flash_content content; /* what flashid calls that filesystem */
	const char *unit;	    /* "partition", "volume" */
	const char *where;	    /* said after "not found" */
	const char *table;	    /* what the names list holds, "MTD partitions" */
	/* A lower's block device: 0, -ENOENT (not there yet), -ENODEV, -EINVAL (bad table). */
	int (*lower)(const char *name, char *dev, size_t len);
	/*
	 * An upper's partition or volume: 0 with ds filled, -ENOENT, -errno.
	 * percent: of the free space, where missing ones are created.
	 */
	int (*upper)(const char *name, unsigned percent, struct data_source *ds);
	/* The names there are, quoted and comma separated. */
	void (*names)(char *buf, size_t len);
	/* The raw device of the boot-outcome record's partition or volume. */
	int (*raw)(const char *name, char *dev, size_t len);
	bool creates_upper;   /* a missing upper is created in the free space (UBI) */
	bool erased_is_empty; /* erased flash is an empty filesystem (jffs2, ubifs) */
	bool scrubs_deadcode; /* OpenWrt's 0xdeadc0de marks: erase and start over (jffs2) */
	bool record_is_ubi;   /* the record is a UBI volume (record.c) */
};

/* The board's back end. */
extern const struct flash_backend *const flash;

#endif
