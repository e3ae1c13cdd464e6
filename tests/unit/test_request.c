// SPDX-License-Identifier: GPL-2.0-only
/* Reset/revert requests, path rules, keep lists and the generation state. */
#define UNIT_NAME "request"
#include "unit.h"
#include "../../init/lib/lowers.h"
#include "../../init/lib/request.h"

#include <errno.h>

static void paths_are_normalised_and_confined(void)
{
	char out[64];
	CHECK(path_normalize("//etc/./config//", out, sizeof(out)) == 0);
	CHECK_STR(out, "/etc/config");
	CHECK(path_normalize("/a/b/c", out, sizeof(out)) == 0);
	CHECK_STR(out, "/a/b/c");
	CHECK(path_normalize("/etc/..", out, sizeof(out)) == -EINVAL);
	CHECK(path_normalize("/../etc", out, sizeof(out)) == -EINVAL);
	CHECK(path_normalize("etc", out, sizeof(out)) == -EINVAL);
	CHECK(path_normalize("/", out, sizeof(out)) == -EINVAL);
	CHECK(path_normalize("/./", out, sizeof(out)) == -EINVAL);
	CHECK(path_normalize("/a\nb", out, sizeof(out)) == -EINVAL);
	CHECK(path_normalize("/...", out, sizeof(out)) == 0);
	CHECK_STR(out, "/...");
	char tiny[6];
	CHECK(path_normalize("/abcdef", tiny, sizeof(tiny)) == -ENAMETOOLONG);
}

static void requests_round_trip(void)
{
	static struct request in, out;
	static char text[4096];
	unsigned bad;
	in.id = 42;
	in.kind = REQ_RESET_FULL;
	CHECK(request_add_keep(&in, "/etc/dropbear") == 0);
	CHECK(request_add_keep(&in, "//etc/dropbear/") == 0); /* duplicate */
	CHECK(request_add_keep(&in, "/root/.ssh") == 0);
	CHECK(in.n_keep == 2);
	CHECK(request_format(&in, text, sizeof(text)) > 0);
	CHECK(request_parse(text, &out, &bad) == 0);
	CHECK(out.id == 42 && out.kind == REQ_RESET_FULL && out.n_keep == 2);
	CHECK_STR(out.keep[1], "/root/.ssh");
	/* no kept path inside another: the inner one is dropped, whichever comes first */
	CHECK(request_add_keep(&in, "/etc/dropbear/key") == 0 && in.n_keep == 2);
	CHECK(request_add_keep(&in, "/etc/config/network") == 0 && in.n_keep == 3);
	CHECK(request_add_keep(&in, "/etc/configs") == 0 && in.n_keep == 4);
	CHECK(request_add_keep(&in, "/etc/config") == 0 && in.n_keep == 4);
	CHECK_STR(in.keep[2], "/etc/configs");
	CHECK_STR(in.keep[3], "/etc/config");
	CHECK(request_add_keep(&in, "/etc") == 0 && in.n_keep == 2);
	CHECK_STR(in.keep[0], "/root/.ssh");
	CHECK_STR(in.keep[1], "/etc");

	/* the first boot of an installed slot */
	static struct request up;
	up.id = 5;
	up.kind = REQ_UPDATE;
	up.slot = 'B';
	CHECK(request_add_keep(&up, "/etc/config") == 0);
	CHECK(request_format(&up, text, sizeof(text)) > 0);
	CHECK(request_parse(text, &out, &bad) == 0);
	CHECK(out.kind == REQ_UPDATE && out.slot == 'B' && !out.keep_all && out.n_keep == 1);
	CHECK(request_parse("strata-request 1\nid 3\nupdate A all\nend\n", &out, &bad) == 0);
	CHECK(out.kind == REQ_UPDATE && out.slot == 'A' && out.keep_all);
	CHECK(request_parse("strata-request 1\nid 3\nupdate C\nend\n", &out, &bad) == -EBADMSG);
	CHECK(request_parse("strata-request 1\nid 3\nupdate A most\nend\n", &out, &bad) ==
	      -EBADMSG);
	CHECK(request_parse("strata-request 1\nid 3\nreset full\nupdate A\nend\n", &out, &bad) ==
	      -EBADMSG);

	static struct request rv;
	rv.id = 7;
	rv.kind = REQ_REVERT;
	rv.n_revert = 2;
	rv.revert[0].layer = LAYER_USER;
	snprintf(rv.revert[0].path, sizeof(rv.revert[0].path), "/etc/config/network");
	rv.revert[1].layer = LAYER_SYSTEM;
	snprintf(rv.revert[1].path, sizeof(rv.revert[1].path), "/usr/lib/opkg");
	CHECK(request_format(&rv, text, sizeof(text)) > 0);
	CHECK(request_parse(text, &out, &bad) == 0);
	CHECK(out.kind == REQ_REVERT && out.n_revert == 2 && out.revert[1].layer == LAYER_SYSTEM);
	CHECK_STR(out.revert[0].path, "/etc/config/network");
	char small[16];
	CHECK(request_format(&rv, small, sizeof(small)) == -ENAMETOOLONG);
}

static void malformed_requests_are_refused(void)
{
	static struct request r;
	unsigned bad = 99;
	static const char *const bad_texts[] = {
	    "",
	    "strata-request 2\nid 1\nreset user\nend\n", /* unknown version */
	    "strata-request 1\nid 1\nreset user\n",	 /* torn: no end */
	    "strata-request 1\nreset user\nend\n",	 /* no id */
	    "strata-request 1\nid 1\nend\n",		 /* nothing to do */
	    "strata-request 1\nid x\nreset user\nend\n",
	    "strata-request 1\nid 1\nreset all\nend\n",
	    "strata-request 1\nid 1\nreset user\nreset full\nend\n",
	    "strata-request 1\nid 1\nrevert user /../etc\nend\n",
	    "strata-request 1\nid 1\nrevert other /etc\nend\n",
	    "strata-request 1\nid 1\nrevert user /etc\nkeep /x\nend\n",
	    "strata-request 1\nid 1\nreset user\nend\nreset full\n", /* after the end */
	    "strata-request 1\nid 1\nreset user\nbogus line\nend\n",
	};
	for (size_t i = 0; i < sizeof(bad_texts) / sizeof(bad_texts[0]); i++) {
		int rc = request_parse(bad_texts[i], &r, &bad);
		if (rc != -EBADMSG)
			fprintf(stderr, "  accepted bad request %zu\n", i);
		CHECK(rc == -EBADMSG);
	}
	CHECK(request_parse("strata-request 1\nid 1\nrevert user /../etc\nend\n", &r, &bad) ==
	      -EBADMSG);
	CHECK(bad == 3);
}

static void keep_lists_name_the_bad_line(void)
{
	static struct request r;
	unsigned bad = 0;
	CHECK(request_add_keep_list(&r, "# comment\n/etc/a\n\n  /etc/b  \n", &bad) == 0);
	CHECK(r.n_keep == 2);
	CHECK_STR(r.keep[1], "/etc/b");
	CHECK(request_add_keep_list(&r, "/etc/c\nrelative\n", &bad) < 0);
	CHECK(bad == 2);
}

static unsigned expanded;

static int expand_stub(struct request *req, const char *pattern)
{
	expanded++;
	return strcmp(pattern, "/etc/x/*") == 0 ? -EINVAL : request_add_keep(req, "/etc/ssl/a.pem");
}

static void other_tools_lists_skip_bad_lines_and_expand_wildcards(void)
{
	static struct request r;
	memset(&r, 0, sizeof(r));
	/* without an expander a wildcard line is skipped, never kept as a name */
	CHECK(request_add_keep_lines(&r, "/etc/a\n/etc/ssl/*.pem\nrelative\n", NULL) == 2);
	CHECK(r.n_keep == 1);
	CHECK_STR(r.keep[0], "/etc/a");
	CHECK(request_add_keep_lines(&r, "/etc/ssl/*.pem\n/etc/b?\n/etc/[ab]\n/etc/x/*\n",
				     expand_stub) == 1);
	CHECK(expanded == 4 && r.n_keep == 2);
	CHECK_STR(r.keep[1], "/etc/ssl/a.pem");

	static const struct {
		const char *pattern, *name;
		bool match;
	} cases[] = {
	    {"*.pem", "a.pem", true},	{"*.pem", "a.pem.bak", false},
	    {"*.pem", ".a.pem", false}, {".*", ".profile", true},
	    {"*", "x", true},		{"*", ".", false},
	    {"a?c", "abc", true},	{"a?c", "ac", false},
	    {"a*b*c", "aXbYbZc", true}, {"a*b*c", "aXbYbZ", false},
	    {"**", "", true},		{"x", "x", true},
	    {"x", "xx", false},		{"*x", "xyx", true},
	    {"?", "", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (keep_name_matches(cases[i].pattern, cases[i].name) != cases[i].match) {
			fprintf(stderr, "  '%s' against '%s'\n", cases[i].pattern, cases[i].name);
			CHECK(0);
		}
}

static void state_round_trips(void)
{
	struct layer_state st = {.system_gen = 3, .user_gen = 5, .applied = 77}, out;
	char text[160];
	CHECK(state_format(&st, text, sizeof(text)) > 0);
	CHECK_STR(text, "system 3\nuser 5\napplied 77\n");
	CHECK(state_parse(text, &out) == 0);
	CHECK(out.system_gen == 3 && out.user_gen == 5 && out.applied == 77);
	CHECK(out.slot == 0 && out.other_system == 0 && out.carried == 0);
	/* a slot's: the other slot's generations kept beside, the last update carried */
	st.slot = 'B';
	st.other_system = 2;
	st.other_user = 4;
	st.carried = 9;
	CHECK(state_format(&st, text, sizeof(text)) > 0);
	CHECK(state_parse(text, &out) == 0);
	CHECK(out.slot == 'B' && out.other_system == 2 && out.other_user == 4 && out.carried == 9);
	CHECK(state_parse("system 1\nuser 1\napplied 0\nslot C\n", &out) == -EBADMSG);
	CHECK(state_parse("system 1\nuser 1\napplied 0\nslot AB\n", &out) == -EBADMSG);
	/* both other generations or neither, and never the live ones */
	CHECK(state_parse("system 1\nuser 1\napplied 0\nother-system 2\n", &out) == -EBADMSG);
	CHECK(state_parse("system 1\nuser 1\napplied 0\nother-system 1\nother-user 2\n", &out) ==
	      -EBADMSG);
	CHECK(state_parse("system 1\nuser 1\napplied 0\nother-system 2\nother-user 2\n", &out) ==
	      0);
	CHECK(state_parse("system 1\nuser 1\n", &out) == -EBADMSG);
	CHECK(state_parse("system 0\nuser 1\napplied 0\n", &out) == -EBADMSG);
	CHECK(state_parse("system 1\nuser -1\napplied 0\n", &out) == -EBADMSG);
	CHECK(state_parse("system 1\nuser 2\napplied 0\nextra 1\n", &out) == -EBADMSG);
	CHECK(state_parse("system 1x\nuser 2\napplied 0\n", &out) == -EBADMSG);
}

static void numbers_at_their_limits(void)
{
	struct layer_state out;
	static struct request req;
	unsigned bad;
	/* the largest valid values, and one past them (strtoul's overflow included) */
	CHECK(state_parse("system 1000000000\nuser 1000000000\napplied 999999999999999\n", &out) ==
	      0);
	CHECK(out.system_gen == GEN_MAX && out.applied == REQ_ID_MAX);
	CHECK(state_parse("system 1000000001\nuser 1\napplied 0\n", &out) == -EBADMSG);
	CHECK(state_parse("system 1\nuser 1\napplied 1000000000000000\n", &out) == -EBADMSG);
	CHECK(state_parse("system 1\nuser 1\napplied 18446744073709551615\n", &out) == -EBADMSG);
	CHECK(state_parse("system 1\nuser 1\napplied 99999999999999999999999\n", &out) == -EBADMSG);
	CHECK(request_parse("strata-request 1\nid 999999999999999\nreset full\nend\n", &req,
			    &bad) == 0);
	CHECK(request_parse("strata-request 1\nid 1000000000000000\nreset full\nend\n", &req,
			    &bad) == -EBADMSG);
	CHECK(request_parse("strata-request 1\nid 18446744073709551616\nreset full\nend\n", &req,
			    &bad) == -EBADMSG);
	/* generations and ids wrap to 1, and a new id never equals the applied one */
	CHECK(gen_next(1) == 2 && gen_next(GEN_MAX - 1) == GEN_MAX && gen_next(GEN_MAX) == 1);
	CHECK(gen_next(4294967295u) == 1);
	CHECK(request_next_id(0, 0) == 1 && request_next_id(5, 0) == 6 &&
	      request_next_id(5, 9) == 10);
	CHECK(request_next_id(REQ_ID_MAX, 0) == 1);
	CHECK(request_next_id(1, REQ_ID_MAX) == 2); /* the wrap would give 1, the applied one */
	CHECK(request_next_id(0, 18446744073709551615UL) == 1);
}

static void lower_lists_are_checked(void)
{
	struct lower_layer l[3];
	unsigned bad = 0;
	CHECK(lowers_parse("", l, 3, &bad) == 0);
	CHECK(lowers_parse("# top first\nextras optional\n\n  tools\n", l, 3, &bad) == 2);
	CHECK_STR(l[0].name, "extras");
	CHECK(l[0].optional && !l[1].optional);
	CHECK_STR(l[1].name, "tools");
	CHECK(lowers_parse("tools", l, 3, &bad) == 1 && !l[0].optional);
	CHECK(lowers_parse("a\nb\nc\nd\n", l, 3, &bad) == -EBADMSG && bad == 4);
	CHECK(lowers_parse("a\na\n", l, 3, &bad) == -EBADMSG && bad == 2);
	CHECK(lowers_parse("a optionally\n", l, 3, &bad) == -EBADMSG && bad == 1);
	CHECK(lowers_parse("a optional x\n", l, 3, &bad) == -EBADMSG && bad == 1);
	CHECK(lowers_parse("ok\nBad/Name\n", l, 3, &bad) == -EBADMSG && bad == 2);
	CHECK(lowers_parse("a-very-long-layer-name-that-is-too-long\n", l, 3, &bad) == -EBADMSG);
}

int main(void)
{
	RUN(lower_lists_are_checked);
	RUN(paths_are_normalised_and_confined);
	RUN(requests_round_trip);
	RUN(malformed_requests_are_refused);
	RUN(keep_lists_name_the_bad_line);
	RUN(other_tools_lists_skip_bad_lines_and_expand_wildcards);
	RUN(state_round_trips);
	RUN(numbers_at_their_limits);
	return UNIT_EXIT();
}
