// SPDX-License-Identifier: GPL-2.0-only
/* Kernel module loading with finit_module; the list comes from the board. */
#include "modules.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

static bool valid_module_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

int modlist_next(const char **cursor, char *name, size_t namelen, char *params, size_t paramlen)
{
	const char *p = *cursor;
	for (;;) {
		const char *line = p, *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len == 0 && !nl) {
			*cursor = p;
			return 0;
		}
		p = line + len + (nl ? 1 : 0);
		*cursor = p;
		while (len && (*line == ' ' || *line == '\t')) {
			line++;
			len--;
		}
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
			len--;
		if (len == 0 || *line == '#')
			continue;
		size_t nlen = 0;
		while (nlen < len && line[nlen] != ' ' && line[nlen] != '\t')
			nlen++;
		const char *rest = line + nlen;
		size_t rlen = len - nlen;
		while (rlen && (*rest == ' ' || *rest == '\t')) {
			rest++;
			rlen--;
		}
		if (nlen >= namelen || rlen >= paramlen)
			return -ENAMETOOLONG;
		memcpy(name, line, nlen);
		name[nlen] = '\0';
		memcpy(params, rest, rlen);
		params[rlen] = '\0';
		return valid_module_name(name) ? 1 : -EINVAL;
	}
}

int module_load(const char *dir, const char *name, const char *params)
{
	static const struct {
		const char *suffix;
		int flags;
	} kinds[] = { { ".ko.xz", MODULE_INIT_COMPRESSED_FILE }, { ".ko", 0 } };
	char path[256];

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		int n = snprintf(path, sizeof(path), "%s/%s%s", dir, name, kinds[i].suffix);
		if (n < 0 || (size_t)n >= sizeof(path))
			return -ENAMETOOLONG;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		long r = syscall(SYS_finit_module, fd, params, kinds[i].flags);
		int err = errno;
		close(fd);
		if (r == 0 || err == EEXIST)
			return 0;
		return -err;
	}
	return -ENOENT;
}
