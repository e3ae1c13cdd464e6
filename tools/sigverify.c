// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigverify: checks a detached signify/usign signature on the host with the
 * verifier the init links (init/lib/signify.c); tests/signify.sh runs it
 * against what signify-openbsd signs.
 *
 *   sigverify PUBKEY SIGFILE FILE
 *
 * Exit 0 when SIGFILE is PUBKEY's signature of FILE, 1 when it is not or a
 * file cannot be read or parsed (one line on stderr says which and why), 2
 * for usage.
 */
#include "signify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* key and signature files are two short lines; a longer one is not one of them */
#define SMALL_FILE_MAX 4096

/* The whole of path in a malloc'd buffer; NULL with errno set. */
static char *read_all(const char *path, size_t max, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		errno = S_ISREG(st.st_mode) ? EFBIG : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	*len = (size_t)st.st_size;
	buf = malloc(*len ? *len : 1);
	if (!buf)
		goto fail;
	for (size_t done = 0; done < *len;) {
		ssize_t n = read(fd, buf + done, *len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO; /* shorter than fstat said: changed while read */
			goto fail;
		}
		done += (size_t)n;
	}
	close(fd);
	return buf;
fail:;
	int e = errno;
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

static void keynum_hex(const uint8_t keynum[SIGNIFY_KEYNUM_SIZE], char hex[17])
{
	for (int i = 0; i < SIGNIFY_KEYNUM_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", keynum[i]);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fputs("usage: sigverify PUBKEY SIGFILE FILE\n", stderr);
		return 2;
	}
	const char *key_path = argv[1], *sig_path = argv[2], *msg_path = argv[3];
	struct signify_key key;
	struct signify_sig sig;
	size_t key_len, sig_len, msg_len;
	char *key_text = NULL, *sig_text = NULL, *msg = NULL;
	int rc = 1, r;

	if (!(key_text = read_all(key_path, SMALL_FILE_MAX, &key_len)))
		fprintf(stderr, "sigverify: cannot read '%s': %s\n", key_path, strerror(errno));
	else if ((r = signify_parse_key(key_text, key_len, &key)) < 0)
		fprintf(stderr, "sigverify: '%s' is not a signify public key: %s\n", key_path,
			strerror(-r));
	else if (!(sig_text = read_all(sig_path, SMALL_FILE_MAX, &sig_len)))
		fprintf(stderr, "sigverify: cannot read '%s': %s\n", sig_path, strerror(errno));
	else if ((r = signify_parse_sig(sig_text, sig_len, &sig)) < 0)
		fprintf(stderr, "sigverify: '%s' is not a signify signature: %s\n", sig_path,
			strerror(-r));
	else if (!(msg = read_all(msg_path, SIZE_MAX, &msg_len)))
		fprintf(stderr, "sigverify: cannot read '%s': %s\n", msg_path, strerror(errno));
	else if ((r = signify_verify(&key, &sig, msg, msg_len)) == -ENOKEY) {
		char want[17], got[17];
		keynum_hex(key.keynum, want);
		keynum_hex(sig.keynum, got);
		fprintf(stderr, "sigverify: '%s' was made with key %s, '%s' is key %s: %s\n",
			sig_path, got, key_path, want, strerror(-r));
	} else if (r < 0) {
		fprintf(stderr, "sigverify: '%s' is not a good signature of '%s': %s\n", sig_path,
			msg_path, strerror(-r));
	} else {
		rc = 0;
	}
	free(key_text);
	free(sig_text);
	free(msg);
	return rc;
}
