// SPDX-License-Identifier: GPL-2.0-only
/* The boot record: phases, layers and outcome of this boot, as /run/strata/boot.json. */
#include "bootrec.h"
#include "strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void bootrec_phase_begin(struct bootrec *rec, const char *name, uint64_t now_ns)
{
	if (rec->n_phases >= BOOTREC_MAX_PHASES)
		return;
	rec->phases[rec->n_phases].name = name;
	rec->phases[rec->n_phases].start_ns = now_ns;
	rec->phases[rec->n_phases].end_ns = 0;
	rec->n_phases++;
}

void bootrec_phase_end(struct bootrec *rec, uint64_t now_ns)
{
	if (rec->n_phases && rec->phases[rec->n_phases - 1].end_ns == 0)
		rec->phases[rec->n_phases - 1].end_ns = now_ns;
}

void bootrec_phase_add(struct bootrec *rec, const char *name, uint64_t start_ns, uint64_t end_ns)
{
	if (rec->n_phases >= BOOTREC_MAX_PHASES)
		return;
	size_t i = rec->n_phases;
	for (; i > 0 && rec->phases[i - 1].start_ns > start_ns; i--)
		rec->phases[i] = rec->phases[i - 1];
	rec->phases[i] = (struct bootrec_phase){name, start_ns, end_ns};
	rec->n_phases++;
}

void bootrec_add_layer(struct bootrec *rec, const char *role, const char *source,
		       const char *fstype, const char *mountpoint, const char *state)
{
	if (rec->n_layers >= BOOTREC_MAX_LAYERS)
		return;
	struct bootrec_layer *l = &rec->layers[rec->n_layers++];
	l->role = role;
	snprintf(l->source, sizeof(l->source), "%s", source);
	snprintf(l->fstype, sizeof(l->fstype), "%s", fstype);
	snprintf(l->mountpoint, sizeof(l->mountpoint), "%s", mountpoint);
	snprintf(l->state, sizeof(l->state), "%s", state);
}

struct bootrec_verity *bootrec_add_verity(struct bootrec *rec)
{
	if (rec->n_verity >= BOOTREC_MAX_VERITY)
		return NULL;
	struct bootrec_verity *v = &rec->verity[rec->n_verity++];
	memset(v, 0, sizeof(*v));
	v->state = v->error = "";
	return v;
}

void bootrec_name_layer(struct bootrec *rec, const char *name)
{
	if (rec->n_layers)
		snprintf(rec->layers[rec->n_layers - 1].name, sizeof(rec->layers[0].name), "%s",
			 name);
}

int bootrec_format_json(const struct bootrec *rec, char *buf, size_t len)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, len);
	strbuf_printf(&sb,
		      "{\n  \"version\": 1,\n  \"init_start_ns\": %" PRIu64
		      ",\n  \"exec_ns\": %" PRIu64 ",\n  \"cpu_ns\": %" PRIu64
		      ",\n  \"cpu_user_ns\": %" PRIu64 ",\n  \"cpu_sys_ns\": %" PRIu64
		      ",\n  \"maxrss_kb\": %ld,\n  \"initramfs_bytes_before\": %" PRIu64
		      ",\n  \"initramfs_bytes_after\": %" PRIu64
		      ",\n  \"cmdline_rejected\": %u,\n  \"init\": ",
		      rec->init_start_ns, rec->exec_ns, rec->cpu_ns, rec->cpu_user_ns,
		      rec->cpu_sys_ns, rec->maxrss_kb, rec->initramfs_bytes_before,
		      rec->initramfs_bytes_after, rec->cmdline_rejected);
	strbuf_json_str(&sb, rec->init);
	strbuf_puts(&sb, ",\n  \"slot\": ");
	strbuf_json_str(&sb, rec->slot);
	strbuf_puts(&sb, ",\n  \"mode\": ");
	strbuf_json_str(&sb, rec->degraded_reason[0] ? "degraded" : "normal");
	strbuf_puts(&sb, ",\n  \"degraded_reason\": ");
	strbuf_json_str(&sb, rec->degraded_reason);
	strbuf_printf(&sb, ",\n  \"degraded_errno\": %d", rec->degraded_errno);
	strbuf_printf(&sb, ",\n  \"first_boot\": %s,\n  \"first_boot_format_ns\": %" PRIu64,
		      rec->first_boot ? "true" : "false", rec->first_boot_format_ns);
	strbuf_printf(&sb,
		      ",\n  \"capabilities\": {\"rename_whiteout\": %s, \"rename_exchange\": %s}",
		      rec->cap_rename_whiteout < 0 ? "null"
		      : rec->cap_rename_whiteout   ? "true"
						   : "false",
		      rec->cap_rename_exchange < 0 ? "null"
		      : rec->cap_rename_exchange   ? "true"
						   : "false");
	strbuf_printf(&sb, ",\n  \"generations\": {\"system\": %u, \"user\": %u}", rec->system_gen,
		      rec->user_gen);
	strbuf_puts(&sb, rec->stack_collapsed	  ? ",\n  \"stack\": [\"system+user\"]"
			 : rec->stack_levels == 1 ? ",\n  \"stack\": [\"system\"]"
						  : ",\n  \"stack\": [\"system\", \"user\"]");
	strbuf_puts(&sb, ",\n  \"request_applied\": ");
	strbuf_json_str(&sb, rec->request_result);
	strbuf_printf(&sb, ",\n  \"request_apply_ns\": %" PRIu64, rec->request_apply_ns);
	strbuf_puts(&sb, ",\n  \"request_error\": ");
	strbuf_json_str(&sb, rec->request_error);
	strbuf_puts(&sb, ",\n  \"state_repaired\": ");
	strbuf_json_str(&sb, rec->state_repaired);
	strbuf_puts(&sb, ",\n  \"keep_failed\": ");
	strbuf_json_str(&sb, rec->keep_failed);
	strbuf_puts(&sb, ",\n  \"slot_data\": ");
	strbuf_json_str(&sb, rec->slot_data);
	strbuf_puts(&sb, ",\n  \"revert_failed\": ");
	strbuf_json_str(&sb, rec->revert_failed);
	strbuf_puts(&sb, ",\n  \"fatal_phase\": ");
	strbuf_json_str(&sb, rec->fatal_phase ? rec->fatal_phase : "");
	strbuf_puts(&sb, ",\n  \"fatal_reason\": ");
	strbuf_json_str(&sb, rec->fatal_reason);
	strbuf_puts(&sb, ",\n  \"record\": ");
	strbuf_json_str(&sb, rec->record_dev);
	strbuf_puts(&sb, ",\n  \"previous_boot\": ");
	if (rec->has_previous) {
		strbuf_puts(&sb, "{\"mode\": ");
		strbuf_json_str(&sb, rec->previous.mode);
		strbuf_printf(&sb, ", \"errno\": %d, \"seq\": %u, \"reason\": ", rec->previous.err,
			      rec->previous.seq);
		strbuf_json_str(&sb, rec->previous.reason);
		strbuf_putc(&sb, '}');
	} else {
		strbuf_puts(&sb, "null");
	}
	strbuf_puts(&sb, ",\n  \"phases\": [");
	for (size_t i = 0; i < rec->n_phases; i++) {
		const struct bootrec_phase *p = &rec->phases[i];
		strbuf_puts(&sb, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
		strbuf_json_str(&sb, p->name);
		strbuf_printf(&sb, ", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64 "}",
			      p->start_ns, p->end_ns);
	}
	strbuf_puts(&sb, "\n  ],\n  \"layers\": [");
	for (size_t i = 0; i < rec->n_layers; i++) {
		const struct bootrec_layer *l = &rec->layers[i];
		strbuf_puts(&sb, i ? ",\n    {\"role\": " : "\n    {\"role\": ");
		strbuf_json_str(&sb, l->role);
		if (l->name[0]) {
			strbuf_puts(&sb, ", \"name\": ");
			strbuf_json_str(&sb, l->name);
		}
		strbuf_puts(&sb, ", \"source\": ");
		strbuf_json_str(&sb, l->source);
		strbuf_puts(&sb, ", \"fstype\": ");
		strbuf_json_str(&sb, l->fstype);
		strbuf_puts(&sb, ", \"mountpoint\": ");
		strbuf_json_str(&sb, l->mountpoint);
		strbuf_puts(&sb, ", \"state\": ");
		strbuf_json_str(&sb, l->state);
		strbuf_putc(&sb, '}');
	}
	strbuf_puts(&sb, "\n  ],\n  \"verity\": [");
	for (size_t i = 0; i < rec->n_verity; i++) {
		const struct bootrec_verity *v = &rec->verity[i];
		strbuf_puts(&sb, i ? ",\n    {\"layer\": " : "\n    {\"layer\": ");
		strbuf_json_str(&sb, v->layer);
		strbuf_puts(&sb, ", \"device\": ");
		strbuf_json_str(&sb, v->device);
		strbuf_printf(&sb, ", \"bytes\": %" PRIu64 ", \"expected\": ", v->bytes);
		strbuf_json_str(&sb, v->expected);
		strbuf_puts(&sb, ", \"measured\": ");
		strbuf_json_str(&sb, v->measured);
		strbuf_puts(&sb, ", \"state\": ");
		strbuf_json_str(&sb, v->state);
		strbuf_puts(&sb, ", \"mode\": ");
		strbuf_json_str(&sb, v->mode ? v->mode : "digest");
		strbuf_puts(&sb, ", \"error\": ");
		strbuf_json_str(&sb, v->error);
		strbuf_printf(&sb, ", \"optional\": %s, \"ns\": %" PRIu64 "}",
			      v->optional ? "true" : "false", v->ns);
	}
	strbuf_puts(&sb, "\n  ]\n}\n");
	return strbuf_result(&sb);
}
