// SPDX-License-Identifier: GPL-2.0-only
/* strata layers: the layers behind / and the system overlay, top first. Read-only. */
#include "inspect.h"
#include "cmd.h"

#include <stdio.h>
#include <string.h>

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
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") != 0)
			return cmd_usage_error(argv[0], "--json", "unknown argument '%s'", argv[i]);
		json = true;
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
