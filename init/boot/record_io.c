// SPDX-License-Identifier: GPL-2.0-only
/*
 * The boot-outcome record on flash. On an MTD partition it is a ring of
 * 256-byte slots over at least two erase blocks: a new record goes into the
 * slot after the newest, and the block it lands in is erased first only when
 * it holds older records, so a power cut never destroys the newest one. On UBI
 * the record is one slot in LEB 0 of its volume, replaced by an atomic LEB
 * change.
 */
#include "mtd_abi.h"
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int read_ubi(int fd, struct outcome_record *rec)
{
	unsigned char slot[RECORD_SLOT];
	ssize_t n = pread(fd, slot, sizeof(slot), 0);
	if (n != (ssize_t)sizeof(slot))
		return n < 0 ? -errno : -ENOENT;
	int r = record_decode(slot, rec);
	return r == -ENODATA ? -ENOENT : r;
}

static int read_mtd(int fd, struct outcome_record *rec, uint64_t *next_off)
{
	struct mtd_info_user mi;
	unsigned char chunk[4096];
	bool found = false;
	uint64_t newest_off = 0;
	int64_t first_erased = -1;

	if (ioctl(fd, MEMGETINFO, &mi) < 0)
		return -errno;
	if (mi.size < 2 * mi.erasesize || mi.erasesize % RECORD_SLOT)
		return -EINVAL;
	/* records fill each block from its start: the first erased slot ends a block's scan */
	for (uint64_t block = 0; block < mi.size; block += mi.erasesize) {
		bool block_done = false;
		for (uint64_t off = block; off < block + mi.erasesize && !block_done;
		     off += sizeof(chunk)) {
			ssize_t n = pread(fd, chunk, sizeof(chunk), (off_t)off);
			if (n < 0)
				return -errno;
			for (size_t s = 0; s + RECORD_SLOT <= (size_t)n && !block_done;
			     s += RECORD_SLOT) {
				struct outcome_record cand;
				int r = record_decode(chunk + s, &cand);
				if (r == -ENODATA) {
					if (first_erased < 0)
						first_erased = (int64_t)(off + s);
					block_done = true;
				}
				/* sequence numbers wrap: newer means a small positive distance */
				if (r == 0 && (!found || (int32_t)(cand.seq - rec->seq) > 0)) {
					*rec = cand;
					newest_off = off + s;
					found = true;
				}
			}
		}
	}
	if (!found) {
		*next_off = first_erased < 0 ? 0 : (uint64_t)first_erased;
		return -ENOENT;
	}
	*next_off = (newest_off + RECORD_SLOT) % mi.size;
	return 0;
}

int record_read_latest(const char *dev, int is_ubi, struct outcome_record *rec, uint64_t *next_off)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*next_off = 0;
	int r = is_ubi ? read_ubi(fd, rec) : read_mtd(fd, rec, next_off);
	close(fd);
	return r;
}

static int write_all_at(int fd, const unsigned char *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

int record_append(const char *dev, int is_ubi, const struct outcome_record *rec, uint64_t next_off)
{
	unsigned char slot[RECORD_SLOT], old[RECORD_SLOT];
	int r = record_encode(rec, slot);
	if (r < 0)
		return r;
	int fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (is_ubi) {
		struct ubi_leb_change_req req = {.lnum = 0, .bytes = RECORD_SLOT};
		if (ioctl(fd, UBI_IOCEBCH, &req) < 0)
			r = -errno;
		else
			r = write_all_at(fd, slot, sizeof(slot), 0);
	} else {
		struct mtd_info_user mi;
		ssize_t n = 0;
		if (ioctl(fd, MEMGETINFO, &mi) < 0)
			r = -errno;
		else if (next_off + RECORD_SLOT > mi.size)
			r = -EINVAL;
		else if ((n = pread(fd, old, sizeof(old), (off_t)next_off)) != (ssize_t)sizeof(old))
			r = n < 0 ? -errno : -EIO;
		else {
			bool erased = true;
			for (size_t i = 0; i < sizeof(old) && erased; i++)
				erased = old[i] == 0xff;
			if (!erased) {
				/*
				 * Only a whole block of older records is erased. A dirty slot
				 * inside the newest record's block (a torn write) moves the
				 * record to the next block, never erasing the newest.
				 */
				if (next_off % mi.erasesize)
					next_off =
					    (next_off - next_off % mi.erasesize + mi.erasesize) %
					    mi.size;
				struct erase_info_user ei = {(uint32_t)next_off, mi.erasesize};
				if (ioctl(fd, MEMERASE, &ei) < 0)
					r = -errno;
			}
			if (r == 0)
				r = write_all_at(fd, slot, sizeof(slot), (off_t)next_off);
		}
	}
	/*
	 * A UBI volume syncs on fsync. An MTD character device has no fsync
	 * (EINVAL) and syncs the MTD when a writer closes it.
	 */
	if (r == 0 && is_ubi && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}
