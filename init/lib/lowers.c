// SPDX-License-Identifier: GPL-2.0-only
/* The list of add-on lower layers the build put in the initramfs. Pure code. */
#include "lowers.h"

#include <errno.h>
#include <string.h>

static bool name_ok(const char *s, size_t len)
{
	if (len == 0 || len >= LOWER_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-'))
			return false;
	return true;
}

int lowers_parse(const char *text, struct lower_layer *out, size_t max, unsigned *bad_line)
{
	size_t n = 0;
	unsigned line = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		line++;
		const char *word = p + strspn(p, " \t");
		if (word < end && *word != '#') {
			size_t len = strcspn(word, " \t\n");
			const char *rest = word + len;
			rest += strspn(rest, " \t");
			bool optional = false;
			if (rest < end) {
				size_t olen = strcspn(rest, " \t\n");
				if (olen != 8 || memcmp(rest, "optional", 8) != 0 ||
				    rest + olen + strspn(rest + olen, " \t") != end)
					goto bad;
				optional = true;
			}
			if (!name_ok(word, len) || n == max)
				goto bad;
			for (size_t i = 0; i < n; i++)
				if (strlen(out[i].name) == len &&
				    memcmp(out[i].name, word, len) == 0)
					goto bad;
			memset(&out[n], 0, sizeof(out[n]));
			memcpy(out[n].name, word, len);
			out[n++].optional = optional;
		}
		p = nl ? nl + 1 : end;
	}
	return (int)n;
bad:
	*bad_line = line;
	return -EBADMSG;
}
