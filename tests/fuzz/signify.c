// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: signify/usign key and signature files (they come with an update), and base64. */
/* fuzz-sources: signify.c ed25519.c sha512.c */
#include "../../init/lib/signify.h"
#include "fuzz.h"

#include <errno.h>

static const char key_a[] = "untrusted comment: strata test key a public key\n"
			    "RWRMUT2vt6EwQgwCRNTQoL0fSfcJCqVIJuE+KoDpyErp7XOjKLtfoTNT\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly size bytes, not terminated: a read past the end is a crash */
	char *text = malloc(size ? size : 1);
	uint8_t out[128];
	size_t n = 0;
	struct signify_key key, a;
	struct signify_sig sig;
	if (!text)
		abort();
	memcpy(text, data, size);

	int r = base64_decode(text, size, out, sizeof(out), &n);
	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -EMSGSIZE);
	if (r == 0)
		FUZZ_ASSERT(size % 4 == 0 && n <= sizeof(out) && n <= size / 4 * 3 &&
			    n + 2 >= size / 4 * 3);

	r = signify_parse_key(text, size, &key);
	FUZZ_ASSERT(r == 0 || r == -EBADMSG);
	if (r == 0)
		FUZZ_ASSERT(ed25519_check_public_key(key.pub) == 0);
	r = signify_parse_sig(text, size, &sig);
	FUZZ_ASSERT(r == 0 || r == -EBADMSG);
	if (r == 0) {
		FUZZ_ASSERT(size > 0 && text[size - 1] == '\n');
		FUZZ_ASSERT(signify_parse_key(key_a, sizeof(key_a) - 1, &a) == 0);
		/* nothing the fuzzer makes is key a's signature of this: that would be a forgery */
		memcpy(sig.keynum, a.keynum, sizeof(a.keynum));
		FUZZ_ASSERT(signify_verify(&a, &sig, "fuzz", 4) == -EBADMSG);
	}
	free(text);
	return 0;
}
