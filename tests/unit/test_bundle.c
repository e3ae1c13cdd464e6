// SPDX-License-Identifier: GPL-2.0-only
/* Update bundles' headers, version order and the installer's configuration. */
#define UNIT_NAME "bundle"
#include "unit.h"
#include "../../init/lib/bundle.h"

#include <errno.h>
#include <string.h>

#define D64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static struct bundle_header h;
static char why[160];

static int parse(const char *text)
{
	return bundle_parse_header(text, strlen(text), &h, why, sizeof(why));
}

static void a_header_is_read(void)
{
	CHECK(parse("strata-bundle 1\ncompatible qemu_x86_64_nor\nversion 1.2\n"
		    "image rootfs 4096 " D64 "\nimage kernel 1 " D64 "\nend\n") == 0);
	CHECK_STR(h.compatible, "qemu_x86_64_nor");
	CHECK_STR(h.version, "1.2");
	CHECK(h.count == 2 && h.image[0].size == 4096 && h.image[1].size == 1);
	CHECK_STR(h.image[1].name, "kernel");
	CHECK(h.image[0].sha256[0] == 0x01 && h.image[0].sha256[31] == 0xef);
}

static void bad_headers_are_named(void)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"strata-bundle 2\nend\n", "line 1: not 'strata-bundle 1'"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nend\n", "no image line"},
	    {"strata-bundle 1\nversion 1\nimage r 1 " D64 "\nend\n", "no compatible line"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nimage r 1 " D64 "\n", "no 'end' line"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nimage R 1 " D64 "\nend\n",
	     "line 4: bad image name 'R'"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nimage r 01 " D64 "\nend\n",
	     "line 4: bad size '01'"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nimage r 0x1 " D64 "\nend\n",
	     "line 4: bad size '0x1'"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nimage r 1 abc\nend\n",
	     "line 4: bad sha256 'abc'"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nimage r 1 " D64 "\nimage r 2 " D64
	     "\nend\n",
	     "line 5: image 'r' twice"},
	    {"strata-bundle 1\ncompatible b\ncompatible c\nend\n", "line 3: unexpected"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nimage r 1 " D64 "\nend\nx\n",
	     "line 6: text after 'end'"},
	    {"strata-bundle 1\ncompatible b\nversion 1\nimage r 1 " D64 "\nend", "not lines"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(parse(bad[i].text) == -EBADMSG);
		CHECK(strstr(why, bad[i].why) != NULL);
	}
	char nul[] = "strata-bundle 1\nend\n";
	nul[3] = '\0';
	CHECK(bundle_parse_header(nul, sizeof(nul) - 1, &h, why, sizeof(why)) == -EBADMSG);
	char nine[1024] = "strata-bundle 1\ncompatible b\nversion 1\n";
	for (int i = 0; i < 9; i++)
		snprintf(nine + strlen(nine), sizeof(nine) - strlen(nine), "image i%d 1 " D64 "\n",
			 i);
	strcat(nine, "end\n");
	CHECK(parse(nine) == -EBADMSG && strstr(why, "more than 8 images"));
}

static void versions_order_as_sort_v(void)
{
	CHECK(bundle_version_cmp("1.10", "1.9") > 0);
	CHECK(bundle_version_cmp("2026.12.1", "2026.11.30") > 0);
	CHECK(bundle_version_cmp("1.2", "1.2") == 0);
	CHECK(bundle_version_cmp("1.02", "1.2") == 0);
	CHECK(bundle_version_cmp("1.2", "1.2.1") < 0);
	CHECK(bundle_version_cmp("1.2-rc1", "1.2-rc2") < 0);
	CHECK(bundle_version_cmp("99999999999999999999", "100000000000000000000") < 0);
}

static void the_configuration_is_read(void)
{
	struct update_conf c;
	CHECK(update_conf_parse(
		  "# a board\ncompatible qemu_aarch64_virt\ntries 5\n"
		  "bootenv uboot part:bootenv 0x4000 0 0x10000\n"
		  "slot A rootfs part:rootfs_a # the root\nslot B rootfs mtd:rootfs_b\n",
		  &c, why, sizeof(why)) == 0);
	CHECK(c.tries == 5 && c.env == UPDATE_ENV_UBOOT && c.env_size == 0x4000);
	CHECK(c.env_copies == 2 && c.env_offset[0] == 0 && c.env_offset[1] == 0x10000);
	CHECK_STR(c.keys, "/etc/strata/keys");
	CHECK_STR(update_conf_target(&c, 'B', "rootfs")->where, "mtd:rootfs_b");
	CHECK(update_conf_target(&c, 'B', "kernel") == NULL);
	CHECK(update_conf_parse("compatible b\nbootenv grub /boot/grubenv\n", &c, why,
				sizeof(why)) == 0);
	CHECK(c.env == UPDATE_ENV_GRUB && c.env_size == 1024 && c.tries == 3);

	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"tries 3\n", "no compatible line"},
	    {"compatible b\ntries 0\n", "line 2: cannot read 'tries'"},
	    {"compatible b\ntries 10\n", "line 2: cannot read 'tries'"},
	    {"compatible b\nslot C r /x\n", "line 2: cannot read 'slot'"},
	    {"compatible b\nslot A r /x\nslot A r /y\n", "line 3: slot A r given twice"},
	    {"compatible b\nbootenv uboot /x 8 0\n", "line 2: bootenv uboot wants"},
	    {"compatible b\nbootenv lilo /x\n", "line 2: cannot read 'bootenv'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(update_conf_parse(bad[i].text, &c, why, sizeof(why)) == -EINVAL);
		CHECK(strstr(why, bad[i].why) != NULL);
	}
}

int main(void)
{
	RUN(a_header_is_read);
	RUN(bad_headers_are_named);
	RUN(versions_order_as_sort_v);
	RUN(the_configuration_is_read);
	return UNIT_EXIT();
}
