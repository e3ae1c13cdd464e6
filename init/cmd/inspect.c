// SPDX-License-Identifier: GPL-2.0-only
/*
 * strata layers | which | diff | analyze: what the stack is, where a path
 * comes from, what an upper changes, how this boot went. Read-only; nothing
 * needs the overlays unmounted. Exit status: 0 ok, 1 error, 2 usage.
 */
#include "inspect.h"
#include "json.h"
#include "request.h"
#include "store.h"
#include "cmd.h"
#include "paths.h"
#include "strbuf.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

static void json_str(FILE *f, const char *s)
{
	char buf[1024];
	struct strbuf sb;
	strbuf_init(&sb, buf, sizeof(buf));
	strbuf_json_str(&sb, s);
	fputs(sb.err ? "\"\"" : buf, f);
}

static int parse_flags(int argc, char **argv, const char *usage, bool *json, int *first_arg)
{
	*first_arg = argc;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			*json = true;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			return -1;
		} else if (*first_arg == argc) {
			*first_arg = i;
		}
	}
	return 1;
}

static int read_stack(const char *cmd, struct stack *st)
{
	int r = stack_read(st);
	if (r < 0)
		fprintf(stderr,
			"%s: cannot see the strata stack (is / the overlay strata built?): %s\n",
			cmd, strerror(-r));
	return r;
}

/* ---- layers ---------------------------------------------------------------- */

static const char layers_usage[] =
    "usage: strata layers [--json]\n"
    "  The layers behind / (user overlay) and /run/strata/system (system overlay), top first.\n";

static const char *layer_state(const struct stack_layer *l)
{
	if (strcmp(l->fs.fstype, "tmpfs") == 0)
		return "tmpfs";
	/* a layer served through dm-verity: verified block by block as it is read */
	if (strcmp(l->verity_state, "verified") == 0 && strcmp(l->verity_mode, "dm-verity") == 0)
		return "dm-verity";
	if (l->verity_state[0])
		return l->verity_state;
	return l->fs.readonly ? "read-only" : "read-write";
}

int cmd_layers(int argc, char **argv)
{
	struct stack st;
	bool json = false;
	int first;
	int r = parse_flags(argc, argv, layers_usage, &json, &first);
	if (r <= 0 || first != argc) {
		if (r == 0)
			return 0;
		fputs(layers_usage, stderr);
		return 2;
	}
	if (read_stack("strata layers", &st) < 0)
		return 1;
	if (json)
		fputs("{\"layers\": [", stdout);
	else
		printf("%-8s %-7s %-34s %-18s %-9s %-10s %9s %9s\n", "LAYER", "STACK", "DIRECTORY",
		       "SOURCE", "FS", "STATE", "SIZE", "FREE");
	unsigned lower_index = 0;
	for (size_t i = 0; i < st.n; i++) {
		const struct stack_layer *l = &st.layers[i];
		bool lower = strcmp(l->role, "lower") == 0;
		bool upper = !lower && strcmp(l->role, "data-only") != 0;
		char name[24];
		if (!lower)
			snprintf(name, sizeof(name), "%s", l->role);
		else
			snprintf(name, sizeof(name), "lower%u", lower_index++);
		if (json) {
			printf("%s\n  {\"layer\": ", i ? "," : "");
			json_str(stdout, name);
			printf(", \"role\": ");
			json_str(stdout, l->role);
			printf(", \"name\": ");
			if (l->name[0])
				json_str(stdout, l->name);
			else
				fputs("null", stdout);
			printf(", \"stack\": ");
			json_str(stdout, l->stack);
			printf(", \"dir\": ");
			json_str(stdout, l->dir);
			printf(", \"source\": ");
			json_str(stdout, l->fs.source);
			printf(", \"fstype\": ");
			json_str(stdout, l->fs.fstype);
			printf(", \"mountpoint\": ");
			json_str(stdout, l->fs.mountpoint);
			printf(", \"options\": ");
			json_str(stdout, l->fs.options);
			printf(", \"readonly\": %s, \"state\": ",
			       l->fs.readonly ? "true" : "false");
			json_str(stdout, layer_state(l));
			if (upper)
				printf(", \"size\": %llu, \"free\": %llu",
				       (unsigned long long)l->size, (unsigned long long)l->avail);
			if (l->verity_state[0]) {
				printf(", \"verity\": {\"state\": ");
				json_str(stdout, l->verity_state);
				printf(", \"mode\": ");
				json_str(stdout, l->verity_mode);
				printf(", \"expected\": ");
				json_str(stdout, l->verity_expected);
				printf(", \"measured\": ");
				json_str(stdout, l->verity_measured);
				printf("}}");
			} else {
				printf(", \"verity\": null}");
			}
		} else {
			char size[16] = "-", avail[16] = "-";
			if (upper) {
				snprintf(size, sizeof(size), "%lluK",
					 (unsigned long long)(l->size >> 10));
				snprintf(avail, sizeof(avail), "%lluK",
					 (unsigned long long)(l->avail >> 10));
			}
			printf("%-8s %-7s %-34s %-18s %-9s %-10s %9s %9s\n", name, l->stack, l->dir,
			       l->fs.source, l->fs.fstype, layer_state(l), size, avail);
		}
	}
	if (json)
		puts("\n]}");
	return 0;
}

/* ---- which ----------------------------------------------------------------- */

static const char which_usage[] =
    "usage: strata which [--json] PATH\n"
    "  Which layer provides PATH now: a copy-up, a whiteout or an opaque directory in an\n"
    "  upper, or a file of lower N (with its partition or volume name); for a metacopy file,\n"
    "  the object it redirects to with its pinned and measured fs-verity digest. Paths that\n"
    "  do not exist report the whiteout that hides them.\n";

static bool is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
}

static bool is_opaque(const char *path)
{
	char v[8];
	ssize_t n = lgetxattr(path, "trusted.overlay.opaque", v, sizeof(v));
	return n > 0 && (v[0] == 'y' || v[0] == 'x');
}

static const char *kind_of(const struct stat *st)
{
	return S_ISDIR(st->st_mode)   ? "directory"
	       : S_ISREG(st->st_mode) ? "file"
	       : S_ISLNK(st->st_mode) ? "symlink"
				      : "other";
}

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
	int first;
	char path[REQ_PATH_MAX];
	int r = parse_flags(argc, argv, which_usage, &json, &first);
	if (r == 0)
		return 0;
	if (r < 0 || first != argc - 1) {
		fputs(which_usage, stderr);
		return 2;
	}
	if (path_normalize(argv[first], path, sizeof(path)) < 0) {
		fprintf(stderr, "strata which: '%s' is not an absolute path inside the root\n",
			argv[first]);
		return 2;
	}
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

/* ---- diff ------------------------------------------------------------------ */

static const char diff_usage[] =
    "usage: strata diff [--user|--system] [--json]\n"
    "  What an upper changes against what lies below it: added, modified, deleted\n"
    "  (whiteouts), opaque directories, with sizes. Default: the layer / writes\n"
    "  to (--user; --system on a stack without a user overlay).\n";

struct change {
	char *path;
	const char *change, *type;
	long long size;
};

struct changes {
	struct change *v;
	size_t n, cap;
};

static void add_change(struct changes *c, const char *path, const char *change, const char *type,
		       long long size)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!c->v) {
			perror("strata diff");
			exit(1);
		}
	}
	c->v[c->n++] = (struct change){strdup(path), change, type, size};
}

static void walk(const char *upper, const char *below, const char *rel, dev_t dev,
		 struct changes *c)
{
	char dir[768];
	snprintf(dir, sizeof(dir), "%s%s", upper, rel);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		char r2[512], up[768], low[768];
		struct stat st, lst;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (xsnprintf(r2, sizeof(r2), "%s/%s", rel, de->d_name) < 0)
			continue;
		snprintf(up, sizeof(up), "%s%s", upper, r2);
		snprintf(low, sizeof(low), "%s%s", below, r2);
		if (lstat(up, &st) < 0 || st.st_dev != dev)
			continue;
		bool in_below = lstat(low, &lst) == 0;
		if (is_whiteout(&st)) {
			add_change(c, r2, "deleted", in_below ? kind_of(&lst) : "", 0);
		} else if (S_ISDIR(st.st_mode)) {
			if (is_opaque(up))
				add_change(c, r2, "opaque", "directory", 0);
			else if (!in_below)
				add_change(c, r2, "added", "directory", 0);
			walk(upper, below, r2, dev, c);
		} else {
			add_change(c, r2, in_below ? "modified" : "added", kind_of(&st),
				   (long long)st.st_size);
		}
	}
	closedir(d);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct change *)a)->path, ((const struct change *)b)->path);
}

int cmd_diff(int argc, char **argv)
{
	struct stack st;
	/* by default the layer / writes to: the user layer, or the system layer when alone */
	bool json = false, system = stack_levels() == 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--user") == 0) {
			system = false;
		} else if (strcmp(argv[i], "--system") == 0) {
			system = true;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(diff_usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "strata diff: unknown argument '%s'\n%s", argv[i],
				diff_usage);
			return 2;
		}
	}
	if (read_stack("strata diff", &st) < 0)
		return 1;
	const char *role = system ? "system" : "user";
	size_t i;
	for (i = 0; i < st.n && strcmp(st.layers[i].role, role) != 0; i++)
		;
	if (i + 1 >= st.n) {
		fprintf(stderr, "strata diff: no %s layer in the stack\n", role);
		return 1;
	}
	/* below the user upper lies the whole system overlay; below the system upper, its lowers */
	const char *upper = st.layers[i].dir;
	const char *below = system ? st.layers[i + 1].dir : STRATA_SYSTEM_DIR;
	struct stat ust;
	if (lstat(upper, &ust) < 0) {
		fprintf(stderr, "strata diff: cannot read '%s': %s\n", upper, strerror(errno));
		return 1;
	}
	struct changes c = {0};
	walk(upper, below, "", ust.st_dev, &c);
	if (c.n) /* qsort(NULL, 0) is undefined */
		qsort(c.v, c.n, sizeof(*c.v), by_path);
	long long total = 0;
	if (json) {
		printf("{\"layer\": \"%s\", \"upper\": ", role);
		json_str(stdout, upper);
		printf(", \"changes\": [");
	}
	for (size_t k = 0; k < c.n; k++) {
		total += c.v[k].size;
		if (json) {
			printf("%s\n  {\"path\": ", k ? "," : "");
			json_str(stdout, c.v[k].path);
			printf(", \"change\": \"%s\", \"type\": \"%s\", \"size\": %lld}",
			       c.v[k].change, c.v[k].type, c.v[k].size);
		} else {
			printf("%c %-48s %10lld\n",
			       c.v[k].change[0] == 'a'	 ? 'A'
			       : c.v[k].change[0] == 'm' ? 'M'
			       : c.v[k].change[0] == 'd' ? 'D'
							 : 'O',
			       c.v[k].path, c.v[k].size);
		}
		free(c.v[k].path);
	}
	if (json)
		printf("\n], \"total_size\": %lld}\n", total);
	else
		printf("%zu change%s in the %s layer, %lld bytes\n", c.n, c.n == 1 ? "" : "s", role,
		       total);
	free(c.v);
	return 0;
}

/* ---- analyze --------------------------------------------------------------- */

static const char analyze_usage[] =
    "usage: strata analyze [--json] [--svg FILE]\n"
    "  This boot's init phases from " STRATA_BOOT_RECORD ", as a table or an SVG timeline.\n";

struct phase {
	char name[32];
	uint64_t start, end;
};

/* NS nanoseconds as milliseconds with DECIMALS (0-3) decimals: "12.3". */
static const char *ms(char buf[32], uint64_t ns, int decimals)
{
	static const unsigned scale[] = {1000000, 100000, 10000, 1000};
	uint64_t units = (ns + scale[decimals] / 2) / scale[decimals], div = 1;
	for (int i = 0; i < decimals; i++)
		div *= 10;
	if (decimals)
		snprintf(buf, 32, "%llu.%0*llu", (unsigned long long)(units / div), decimals,
			 (unsigned long long)(units % div));
	else
		snprintf(buf, 32, "%llu", (unsigned long long)units);
	return buf;
}

static int write_svg(const char *file, const struct phase *ph, size_t n, uint64_t t0, uint64_t t1)
{
	FILE *f = fopen(file, "w");
	if (!f)
		return -errno;
	const unsigned width = 900, left = 130, bar = 22, top = 40, plot = width - left - 20;
	uint64_t span = t1 > t0 ? t1 - t0 : 1;
	unsigned height = top + (unsigned)n * (bar + 6) + 50;
	char a[32], b[32];
	fprintf(
	    f,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
	    "font-family=\"monospace\" font-size=\"12\">\n"
	    "<title>strata boot timeline</title>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	    "<text x=\"10\" y=\"22\" font-size=\"14\">strata: %s ms from /init to exec</text>\n",
	    width, height, ms(a, span, 1));
	for (size_t i = 0; i < n; i++) {
		unsigned x = left + (unsigned)((ph[i].start - t0) * plot / span);
		unsigned w = (unsigned)((ph[i].end - ph[i].start) * plot / span);
		unsigned y = top + (unsigned)i * (bar + 6);
		w = w < 1 ? 1 : w;
		fprintf(f,
			"<g><title>%s: %s ms</title>"
			"<text x=\"10\" y=\"%u\">%s</text>"
			"<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"#4a7fb5\"/>"
			"<text x=\"%u\" y=\"%u\">%s ms</text></g>\n",
			ph[i].name, ms(a, ph[i].end - ph[i].start, 2), y + 15, ph[i].name, x, y, w,
			bar, x + w + 4, y + 15, ms(b, ph[i].end - ph[i].start, 1));
	}
	unsigned axis = top + (unsigned)n * (bar + 6) + 10;
	fprintf(f, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"black\"/>\n", left, axis,
		width - 20, axis);
	for (unsigned k = 0; k <= 4; k++)
		fprintf(f, "<text x=\"%u\" y=\"%u\">%s ms</text>\n", left + plot * k / 4 - 10,
			axis + 18, ms(a, span * k / 4, 0));
	fputs("</svg>\n", f);
	return fclose(f) == 0 ? 0 : -errno;
}

int cmd_analyze(int argc, char **argv)
{
	static char text[16384], obj[512];
	static struct phase ph[32];
	const char *svg = NULL;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--svg") == 0 && i + 1 < argc) {
			svg = argv[++i];
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(analyze_usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "strata analyze: unknown argument '%s'\n%s", argv[i],
				analyze_usage);
			return 2;
		}
	}
	uint64_t t0, t1;
	ssize_t n = read_file(STRATA_BOOT_RECORD, text, sizeof(text));
	const char *cur = n >= 0 ? json_find_array(text, "phases") : NULL;
	if (!cur || json_get_u64(text, "init_start_ns", &t0) < 0 ||
	    json_get_u64(text, "exec_ns", &t1) < 0) {
		fprintf(stderr, "strata analyze: cannot read the phases in '%s'\n",
			STRATA_BOOT_RECORD);
		return 1;
	}
	size_t np = 0;
	int r;
	while (np < ARRAY_SIZE(ph) && (r = json_array_next(&cur, obj, sizeof(obj))) == 1) {
		if (json_get_string(obj, "name", ph[np].name, sizeof(ph[np].name)) < 0 ||
		    json_get_u64(obj, "start_ns", &ph[np].start) < 0 ||
		    json_get_u64(obj, "end_ns", &ph[np].end) < 0 || ph[np].end < ph[np].start)
			r = -EINVAL;
		else
			np++;
		if (r < 0)
			break;
	}
	if (r < 0 && np < ARRAY_SIZE(ph)) {
		fprintf(stderr, "strata analyze: malformed phase in '%s'\n", STRATA_BOOT_RECORD);
		return 1;
	}
	char a[32], b[32];
	if (json) {
		printf("{\"total_ms\": %s, \"phases\": [", ms(a, t1 - t0, 3));
		for (size_t i = 0; i < np; i++)
			printf("%s\n  {\"name\": \"%s\", \"start_ms\": %s, \"duration_ms\": %s}",
			       i ? "," : "", ph[i].name, ms(a, ph[i].start - t0, 3),
			       ms(b, ph[i].end - ph[i].start, 3));
		puts("\n]}");
	} else {
		printf("%-14s %10s %10s\n", "PHASE", "START ms", "TOOK ms");
		for (size_t i = 0; i < np; i++)
			printf("%-14s %10s %10s\n", ph[i].name, ms(a, ph[i].start - t0, 1),
			       ms(b, ph[i].end - ph[i].start, 1));
		printf("%-14s %10s %10s\n", "total", "", ms(a, t1 - t0, 1));
	}
	if (svg) {
		int w = write_svg(svg, ph, np, t0, t1);
		if (w < 0) {
			fprintf(stderr, "strata analyze: cannot write '%s': %s\n", svg,
				strerror(-w));
			return 1;
		}
	}
	return 0;
}
