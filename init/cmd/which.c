// SPDX-License-Identifier: GPL-2.0-only
/* strata which: which layer of the live stack provides a path, and what hides it. Read-only. */
#include "inspect.h"
#include "request.h"
#include "store.h"
#include "cmd.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Where a path comes from in the live stack: what `strata which` found, before it says a word. */
struct which {
	char path[REQ_PATH_MAX];
	const struct stack_layer *provider; /* the layer the path shows from; NULL: none */
	const char *state; /* "only", "copy-up", "opaque", "whiteout", "hidden", "absent" */
	const char *type;  /* kind_of() the provider's entry; "" without a provider */
	bool metacopy;
	char redirect[256]; /* the provider's trusted.overlay.redirect; "" without one */
	/* the whiteout or opaque directory that hides the path; hid_path "" when none does */
	char hid_path[REQ_PATH_MAX];
	const char *hid_layer, *hid_kind;
	char object[512]; /* the data-only file a metacopy redirect leads to; "" none */
	char pinned[FSVERITY_HEX_SIZE];	  /* the digest the metacopy xattr pins; "" none */
	char measured[FSVERITY_HEX_SIZE]; /* the object's fs-verity digest now; "" none */
};

static void which_hidden(struct which *w, const struct stack_layer *l, const char *kind)
{
	/* w->path cut at the hiding ancestor, or whole; both arrays REQ_PATH_MAX bytes */
	memcpy(w->hid_path, w->path, strlen(w->path) + 1);
	w->hid_layer = l->role;
	w->hid_kind = kind;
}

/* An ancestor of w->path that is a whiteout or an opaque directory in l hides what lies below. */
static int which_hiding_ancestor(struct which *w, const struct stack_layer *l)
{
	char full[512];
	for (char *slash = strchr(w->path + 1, '/'); slash && !w->hid_path[0];
	     slash = strchr(slash + 1, '/')) {
		struct stat ast;
		*slash = '\0';
		int r = xsnprintf(full, sizeof(full), "%s%s", l->dir, w->path);
		if (r >= 0 && lstat(full, &ast) == 0 &&
		    (is_whiteout(&ast) || (S_ISDIR(ast.st_mode) && is_opaque(full))))
			which_hidden(w, l, is_whiteout(&ast) ? "whiteout" : "opaque directory");
		*slash = '/';
		if (r < 0)
			return r;
	}
	return 0;
}

/* Whether a layer below layers[i] also has the path: the provider's entry is a copy-up. */
static int which_copy_up(const struct stack *st, size_t i, const char *path, bool *copy_up)
{
	char full[512];
	*copy_up = false;
	for (size_t j = i + 1; j < st->n && !*copy_up; j++) {
		struct stat lst;
		if (xsnprintf(full, sizeof(full), "%s%s", st->layers[j].dir, path) < 0)
			return -ENAMETOOLONG;
		*copy_up = lstat(full, &lst) == 0 && !is_whiteout(&lst);
	}
	return 0;
}

/* layers[i] provides the path, which full names there: its type, opacity, metacopy, redirect. */
static int which_provided(struct which *w, const struct stack *st, size_t i, const char *full,
			  const struct stat *pst)
{
	uint8_t mc[4 + FSVERITY_DIGEST_SIZE];
	bool copy_up;
	/* an entry under an opaque directory of this very layer is still visible */
	w->hid_path[0] = '\0';
	w->provider = &st->layers[i];
	w->type = kind_of(pst);
	bool opaque = S_ISDIR(pst->st_mode) && is_opaque(full);
	ssize_t mn = lgetxattr(full, "trusted.overlay.metacopy", mc, sizeof(mc));
	w->metacopy = mn >= 0;
	/* struct ovl_metacopy: version, len, flags, digest_algo (1: sha256), digest */
	if (mn == (ssize_t)sizeof(mc) && mc[1] == sizeof(mc) && mc[3] == 1)
		fsverity_to_hex(mc + 4, w->pinned);
	ssize_t rn =
	    lgetxattr(full, "trusted.overlay.redirect", w->redirect, sizeof(w->redirect) - 1);
	w->redirect[rn > 0 ? rn : 0] = '\0';
	int r = which_copy_up(st, i, w->path, &copy_up);
	w->state = opaque ? "opaque" : copy_up ? "copy-up" : "only";
	return r;
}

/* The object a metacopy file's data comes from, and what it holds now. */
static void which_object(struct which *w, const struct stack *st)
{
	for (size_t i = 0; w->redirect[0] == '/' && i < st->n && !w->object[0]; i++) {
		uint8_t d[FSVERITY_DIGEST_SIZE];
		bool kernel = false;
		if (strcmp(st->layers[i].role, "data-only") != 0 ||
		    xsnprintf(w->object, sizeof(w->object), "%s%s", st->layers[i].dir,
			      w->redirect) < 0 ||
		    access(w->object, F_OK) < 0) {
			w->object[0] = '\0';
			continue;
		}
		if (layer_measure(w->object, 0, d, &kernel) == 0 && kernel)
			fsverity_to_hex(d, w->measured);
	}
}

/* Fills w for path (normalized), walking the stack top first. Returns 0 or -ENAMETOOLONG. */
static int which_resolve(struct which *w, const struct stack *st, const char *path)
{
	char full[512];
	*w = (struct which){.state = "absent", .type = "", .hid_layer = "", .hid_kind = ""};
	if (xsnprintf(w->path, sizeof(w->path), "%s", path) < 0)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < st->n && !w->provider && !w->hid_path[0]; i++) {
		const struct stack_layer *l = &st->layers[i];
		struct stat pst;
		if (strcmp(l->role, "data-only") == 0)
			continue; /* files by digest, reached only through a redirect */
		int r = which_hiding_ancestor(w, l);
		if (r < 0 || (r = xsnprintf(full, sizeof(full), "%s%s", l->dir, w->path)) < 0)
			return r;
		if (lstat(full, &pst) < 0)
			continue;
		if (is_whiteout(&pst)) {
			w->state = "whiteout";
			which_hidden(w, l, "whiteout");
			break;
		}
		if ((r = which_provided(w, st, i, full, &pst)) < 0)
			return r;
	}
	if (w->hid_path[0] && !w->provider && strcmp(w->state, "whiteout") != 0)
		w->state = "hidden";
	which_object(w, st);
	return 0;
}

static void json_str_or_null(const char *s, bool present)
{
	if (present)
		json_str(stdout, s);
	else
		fputs("null", stdout);
}

static void which_print_json(const struct which *w)
{
	const struct stack_layer *l = w->provider;
	printf("{\"path\": ");
	json_str(stdout, w->path);
	printf(", \"provided_by\": ");
	json_str_or_null(l ? l->role : "", l);
	if (l && l->lower >= 0)
		printf(", \"lower\": %d", l->lower);
	else
		fputs(", \"lower\": null", stdout);
	printf(", \"layer_name\": ");
	json_str_or_null(l ? l->name : "", l && l->name[0]);
	printf(", \"state\": ");
	json_str(stdout, w->state);
	printf(", \"type\": ");
	json_str(stdout, w->type);
	printf(", \"hidden_by_layer\": ");
	json_str_or_null(w->hid_layer, w->hid_path[0]);
	printf(", \"hidden_by_path\": ");
	json_str_or_null(w->hid_path, w->hid_path[0]);
	printf(", \"hidden_by_kind\": ");
	json_str_or_null(w->hid_kind, w->hid_path[0]);
	printf(", \"metacopy\": %s, \"redirect\": ", w->metacopy ? "true" : "false");
	json_str_or_null(w->redirect, w->redirect[0]);
	const char *const extra[][2] = {
	    {"object", w->object}, {"pinned_digest", w->pinned}, {"measured_digest", w->measured}};
	for (size_t i = 0; i < ARRAY_SIZE(extra); i++) {
		printf(", \"%s\": ", extra[i][0]);
		json_str_or_null(extra[i][1], extra[i][1][0]);
	}
	puts("}");
}

static void which_print_provider(const struct which *w)
{
	const struct stack_layer *l = w->provider;
	printf("%s: %s from the %s", w->path, w->type, l->role);
	if (l->lower >= 0)
		printf(" %d '%s'", l->lower, l->name);
	printf(" layer (%s)%s\n",
	       strcmp(w->state, "copy-up") == 0	 ? "a copy-up: it hides the version below"
	       : strcmp(w->state, "opaque") == 0 ? "an opaque directory: nothing below shows"
						 : "only there",
	       w->metacopy ? ", metacopy" : "");
	if (w->redirect[0])
		printf("  redirect: %s\n", w->redirect);
	if (w->object[0])
		printf("  object:   %s\n", w->object);
	if (w->pinned[0])
		printf("  pinned:   sha256:%s\n", w->pinned);
	if (w->object[0])
		printf("  measured: %s%s\n", w->measured[0] ? "sha256:" : "",
		       w->measured[0] ? w->measured : "no fs-verity on the object");
}

static void which_print_text(const struct which *w)
{
	if (w->provider)
		which_print_provider(w);
	else if (w->hid_path[0])
		printf("%s: not visible: the %s %s in the %s layer hides it\n", w->path,
		       w->hid_kind, w->hid_path, w->hid_layer);
	else
		printf("%s: in no layer\n", w->path);
}

int cmd_which(int argc, char **argv)
{
	struct stack st;
	struct which w;
	bool json = false;
	char path[REQ_PATH_MAX];
	const char *arg = NULL;
	int r;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (argv[i][0] == '-' && argv[i][1] == '-')
			return cmd_usage_error(argv[0], "--json and a PATH",
					       "unknown argument '%s'", argv[i]);
		else if (arg)
			return cmd_usage_error(argv[0], "one PATH", "a second PATH '%s'", argv[i]);
		else
			arg = argv[i];
	}
	if (!arg)
		return cmd_usage_error(argv[0], "a PATH", "which path?");
	if (path_normalize(arg, path, sizeof(path)) < 0)
		return cmd_usage_error(argv[0], "an absolute path inside the root (no '..')",
				       "'%s' is not an absolute path inside the root", arg);
	if (read_stack("strata which", &st) < 0)
		return 1;
	if ((r = which_resolve(&w, &st, path)) < 0) {
		fprintf(stderr, "strata which: cannot look up '%s' in the layers: %s\n", path,
			strerror(-r));
		return 1;
	}
	if (json)
		which_print_json(&w);
	else
		which_print_text(&w);
	return w.provider || w.hid_path[0] ? 0 : 1;
}
