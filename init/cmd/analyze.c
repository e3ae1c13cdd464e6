// SPDX-License-Identifier: GPL-2.0-only
/* strata analyze: this boot's init phases from the boot record, as a table or an SVG. */
#include "json.h"
#include "paths.h"
#include "cmd.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
		} else if (strcmp(argv[i], "--svg") == 0) {
			return cmd_usage_error(argv[0], "--svg FILE", "--svg without a FILE");
		} else {
			return cmd_usage_error(argv[0], "--json or --svg FILE",
					       "unknown argument '%s'", argv[i]);
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
