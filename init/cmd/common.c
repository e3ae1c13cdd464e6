// SPDX-License-Identifier: GPL-2.0-only
/* What the read-only commands (layers, which, diff) share: JSON strings, the stack, overlay
 * entries. */
#include "inspect.h"
#include "strbuf.h"
#include "cmd.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

void json_str(FILE *f, const char *s)
{
	char buf[1024];
	struct strbuf sb;
	strbuf_init(&sb, buf, sizeof(buf));
	strbuf_json_str(&sb, s);
	fputs(sb.err ? "\"\"" : buf, f);
}

int read_stack(const char *cmd, struct stack *st)
{
	int r = stack_read(st);
	if (r < 0)
		fprintf(stderr,
			"%s: cannot see the strata stack (is / the overlay strata built?): %s\n",
			cmd, strerror(-r));
	return r;
}

bool is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
}

bool is_opaque(const char *path)
{
	char v[8];
	ssize_t n = lgetxattr(path, "trusted.overlay.opaque", v, sizeof(v));
	return n > 0 && (v[0] == 'y' || v[0] == 'x');
}

const char *kind_of(const struct stat *st)
{
	return S_ISDIR(st->st_mode)   ? "directory"
	       : S_ISREG(st->st_mode) ? "file"
	       : S_ISLNK(st->st_mode) ? "symlink"
				      : "other";
}
