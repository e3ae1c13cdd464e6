// SPDX-License-Identifier: GPL-2.0-only
/*
 * The boot-outcome record's flash I/O (init/boot/record_io.c, included whole)
 * on a scratch file that plays an MTD partition: MEMGETINFO and MEMERASE are
 * answered here, so the ring's wrap, its torn-write rule and its errors run
 * on the host.
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "mtd_abi.h"

#define UNIT_NAME "record_io"
#define ERASE 4096u
#define BLOCKS 3u

static int fake_ioctl(int fd, unsigned long req, ...);
#define ioctl fake_ioctl
#include "../../init/boot/record_io.c"
#undef ioctl

static char dev[] = "/tmp/strata-record-XXXXXX";
static int erases;

static int fake_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (req == MEMGETINFO) {
		struct mtd_info_user *mi = arg;
		memset(mi, 0, sizeof(*mi));
		mi->size = ERASE * BLOCKS;
		mi->erasesize = ERASE;
		return 0;
	}
	if (req == MEMERASE) {
		const struct erase_info_user *ei = arg;
		static unsigned char ff[ERASE];
		memset(ff, 0xff, sizeof(ff));
		erases++;
		return pwrite(fd, ff, ei->length, ei->start) == (ssize_t)ei->length ? 0 : -1;
	}
	errno = ENOTTY;
	return -1;
}

static void erased_flash(void)
{
	static unsigned char ff[ERASE * BLOCKS];
	memset(ff, 0xff, sizeof(ff));
	int fd = open(dev, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, ff, sizeof(ff)) == (ssize_t)sizeof(ff));
	close(fd);
	erases = 0;
}

static int append(uint32_t seq)
{
	struct outcome_record rec = {.seq = seq, .err = 5};
	snprintf(rec.mode, sizeof(rec.mode), "degraded");
	snprintf(rec.reason, sizeof(rec.reason), "boot %u", (unsigned)seq);
	struct outcome_record latest;
	uint64_t next;
	int r = record_read_latest(dev, 0, &latest, &next);
	if (r < 0 && r != -ENOENT)
		return r;
	return record_append(dev, 0, &rec, next);
}

static uint32_t latest_seq(void)
{
	struct outcome_record rec;
	uint64_t next;
	return record_read_latest(dev, 0, &rec, &next) == 0 ? rec.seq : 0;
}

/* more records than the ring holds: each block erased only when it holds older ones */
static void ring_wraps_keeping_the_newest(void)
{
	erased_flash();
	unsigned per_ring = ERASE * BLOCKS / RECORD_SLOT;
	for (uint32_t seq = 1; seq <= 2 * per_ring + 3; seq++) {
		CHECK(append(seq) == 0);
		CHECK(latest_seq() == seq);
	}
	/* the first pass used erased flash; each later block start erased once */
	CHECK(erases == (int)(BLOCKS + 1));
}

/* a torn slot after the newest moves the next record to the next block */
static void torn_slot_is_stepped_over(void)
{
	erased_flash();
	CHECK(append(1) == 0);
	CHECK(append(2) == 0);
	int fd = open(dev, O_WRONLY);
	unsigned char junk[16] = "STRB torn write";
	CHECK(pwrite(fd, junk, sizeof(junk), 2 * RECORD_SLOT) == (ssize_t)sizeof(junk));
	close(fd);
	CHECK(latest_seq() == 2);
	CHECK(append(3) == 0);
	CHECK(latest_seq() == 3);
	struct outcome_record rec;
	unsigned char slot[RECORD_SLOT];
	fd = open(dev, O_RDONLY);
	CHECK(pread(fd, slot, sizeof(slot), ERASE) == (ssize_t)sizeof(slot));
	close(fd);
	CHECK(record_decode(slot, &rec) == 0 && rec.seq == 3);
	/* the block holding record 2 was not erased */
	fd = open(dev, O_RDONLY);
	CHECK(pread(fd, slot, sizeof(slot), RECORD_SLOT) == (ssize_t)sizeof(slot));
	close(fd);
	CHECK(record_decode(slot, &rec) == 0 && rec.seq == 2);
}

/* an offset past the partition is EINVAL, whatever errno held before */
static void bad_offset_is_not_a_stale_errno(void)
{
	erased_flash();
	struct outcome_record rec = {.seq = 1};
	snprintf(rec.mode, sizeof(rec.mode), "normal");
	errno = EBUSY;
	CHECK(record_append(dev, 0, &rec, ERASE * BLOCKS) == -EINVAL);
	CHECK(record_append("/nonexistent/mtd", 0, &rec, 0) == -ENOENT);
}

int main(void)
{
	int fd = mkstemp(dev);
	if (fd < 0)
		return 1;
	close(fd);
	RUN(ring_wraps_keeping_the_newest);
	RUN(torn_slot_is_stepped_over);
	RUN(bad_offset_is_not_a_stale_errno);
	unlink(dev);
	return UNIT_EXIT();
}
