// SPDX-License-Identifier: GPL-2.0-only
/* Mount table and overlay option reading, JSON arrays. */
#define UNIT_NAME "inspect"
#include "unit.h"
#include "../../init/lib/inspect.h"
#include "../../init/lib/json.h"

#include <errno.h>

static const char mountinfo[] =
    "22 1 0:5 / / rw,noatime - overlay overlay rw,lowerdir=/run/strata/system,"
    "upperdir=/run/strata/data/user.1/upper,workdir=/run/strata/data/user.1/work\n"
    "27 26 31:0 / /run/strata/lower/0 ro,nosuid,nodev - squashfs /dev/mtdblock0 ro\n"
    "28 26 0:24 / /run/strata/data rw,noatime - jffs2 mtd1 rw\n"
    "29 26 0:25 / /mnt/with\\040space rw - tmpfs tmpfs rw\n"
    "30 26 0:26 / /run/strata/data rw - tmpfs tmpfs rw\n"
    "garbage line\n";

static void mountinfo_lookup(void)
{
	struct mount_entry m;
	CHECK(mountinfo_find(mountinfo, "/run/strata/lower/0", &m) == 0);
	CHECK_STR(m.fstype, "squashfs");
	CHECK_STR(m.source, "/dev/mtdblock0");
	CHECK(m.readonly);
	CHECK(mountinfo_find(mountinfo, "/mnt/with space", &m) == 0);
	CHECK(!m.readonly);
	/* the last mount on a mountpoint is the visible one */
	CHECK(mountinfo_find(mountinfo, "/run/strata/data", &m) == 0);
	CHECK_STR(m.fstype, "tmpfs");
	CHECK(mountinfo_find(mountinfo, "/nope", &m) == -ENOENT);
	CHECK(mountinfo_find("", "/", &m) == -ENOENT);
}

static void overlay_options(void)
{
	char out[64];
	struct mount_entry m;
	CHECK(mountinfo_find(mountinfo, "/", &m) == 0);
	CHECK(ovl_option(m.options, "upperdir", out, sizeof(out)) == 0);
	CHECK_STR(out, "/run/strata/data/user.1/upper");
	CHECK(ovl_option(m.options, "lowerdir", out, sizeof(out)) == 0);
	CHECK_STR(out, "/run/strata/system");
	CHECK(ovl_option("lowerdir=/a\\,b:/c,upperdir=/u", "lowerdir", out, sizeof(out)) == 0);
	CHECK_STR(out, "/a,b:/c");
	CHECK(ovl_option("xlowerdir=/a", "lowerdir", out, sizeof(out)) == -ENOENT);
	char tiny[4];
	CHECK(ovl_option("upperdir=/long", "upperdir", tiny, sizeof(tiny)) == -ENAMETOOLONG);
	/* the new mount API: one key per layer */
	const char *api = "rw,lowerdir+=/l0,lowerdir+=/l1,datadir+=/d,upperdir=/u,verity=require";
	CHECK(ovl_option_at(api, "lowerdir+", 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "/l1");
	CHECK(ovl_option_at(api, "lowerdir+", 2, out, sizeof(out)) == -ENOENT);
	CHECK(ovl_option_at(api, "datadir+", 0, out, sizeof(out)) == 0);
	CHECK_STR(out, "/d");
	CHECK(ovl_option(api, "lowerdir", out, sizeof(out)) == -ENOENT);
}

static void json_arrays(void)
{
	const char *text = "{\"phases\": [\n {\"name\": \"a}\", \"start_ns\": 1},\n"
			   " {\"name\": \"b\", \"x\": {\"y\": 1}}\n], \"z\": 1}";
	char obj[64], name[8];
	const char *cur = json_find_array(text, "phases");
	CHECK(cur != NULL);
	CHECK(json_array_next(&cur, obj, sizeof(obj)) == 1);
	CHECK(json_get_string(obj, "name", name, sizeof(name)) == 0);
	CHECK_STR(name, "a}");
	CHECK(json_array_next(&cur, obj, sizeof(obj)) == 1);
	CHECK(json_get_string(obj, "name", name, sizeof(name)) == 0);
	CHECK_STR(name, "b");
	CHECK(json_array_next(&cur, obj, sizeof(obj)) == 0);
	CHECK(json_find_array(text, "z") == NULL);
	const char *bad = "[{\"a\": 1";
	cur = bad + 1;
	CHECK(json_array_next(&cur, obj, sizeof(obj)) == -EINVAL);
	const char *big = "[{\"aaaaaaaaaaaaaaaaaaaa\": 1}]";
	cur = big + 1;
	char small[8];
	CHECK(json_array_next(&cur, small, sizeof(small)) == -ENAMETOOLONG);
}

int main(void)
{
	RUN(mountinfo_lookup);
	RUN(overlay_options);
	RUN(json_arrays);
	return UNIT_EXIT();
}
