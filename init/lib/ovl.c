// SPDX-License-Identifier: GPL-2.0-only
/* overlayfs mount option building. Pure code. */
#include "ovl.h"
#include "strbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* overlayfs splits options at ',' and lowerdir at ':'; '\' escapes both */
static void put_path(struct strbuf *sb, const char *p)
{
	for (; *p && !sb->err; p++) {
		if (*p == ',' || *p == ':' || *p == '\\')
			strbuf_putc(sb, '\\');
		strbuf_putc(sb, *p);
	}
}

int ovl_build_options(const struct ovl_spec *spec, char *buf, size_t len)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, len);
	if (sb.err)
		return sb.err;
	if (spec->n_lowers == 0 || spec->n_lowers > OVL_MAX_LOWERS || !spec->upper != !spec->work)
		return -EINVAL;
	/* a read-only overlay needs two lowers; one lower alone is not an overlay */
	if (!spec->upper && spec->n_lowers < 2)
		return -EINVAL;
	strbuf_puts(&sb, "lowerdir=");
	for (size_t i = 0; i < spec->n_lowers; i++) {
		if (!spec->lowers[i] || !spec->lowers[i][0])
			return -EINVAL;
		if (i)
			strbuf_putc(&sb, ':');
		put_path(&sb, spec->lowers[i]);
	}
	if (spec->datadir) {
		if (!spec->datadir[0])
			return -EINVAL;
		strbuf_puts(&sb, "::");
		put_path(&sb, spec->datadir);
	}
	if (spec->upper) {
		if (!spec->upper[0] || !spec->work[0])
			return -EINVAL;
		strbuf_puts(&sb, ",upperdir=");
		put_path(&sb, spec->upper);
		strbuf_puts(&sb, ",workdir=");
		put_path(&sb, spec->work);
	}
	for (size_t i = 0; spec->flags && spec->flags[i]; i++) {
		strbuf_putc(&sb, ',');
		strbuf_puts(&sb, spec->flags[i]);
	}
	return strbuf_result(&sb);
}

void fsctx_keep_message(char *msg, size_t len, const char *line)
{
	if (!len)
		return;
	bool have_error = msg[0] == 'e' && msg[1] == ' ';
	bool is_error = line[0] == 'e' && line[1] == ' ';
	if (have_error || (msg[0] && !is_error))
		return;
	size_t n = strcspn(line, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(msg, line, n);
	msg[n] = '\0';
}
