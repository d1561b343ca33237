/* A run's dumps analyzed after the run (run_dumps.h). */
#define _GNU_SOURCE
#include "dump/run_dumps.h"
#include "dump/fresh.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run/files.h"
#include "run/timeline.h"
#include "util/vec.h"

/* One dump of the timeline: its number, file and what ran out. */
struct written {
	int seq;
	char file[256], ran_out[16];
};

/* The dumps written, from the timeline's dump records; *android when the
 * runtime watched was ART. 0 or -errno. */
static int read_dumps(const char *dir, struct written **out, size_t *n, int *android)
{
	char path[4200], *line = NULL;
	size_t cap = 0, len = 0;
	FILE *f;

	*out = NULL;
	*n = 0;
	*android = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, RUN_TIMELINE);
	if (!(f = fopen(path, "r")))
		return -errno;
	while (getline(&line, &len, f) > 0) {
		struct json_object *o = json_tokener_parse(line);
		struct run_record r;

		if (!o)
			continue;
		switch (run_record_read(o, &r)) {
		case REC_RUNTIME:
			*android = r.u.runtime.runtime && !strcmp(r.u.runtime.runtime, "art");
			break;
		case REC_DUMP:
			if (r.u.dump.ok && r.u.dump.file && r.u.dump.seq > 0 && r.u.dump.seq < INT32_MAX &&
			    !strchr(r.u.dump.file, '/')) {
				struct written *w = VEC_PUSH(*out, *n, cap);

				if (!w) {
					json_object_put(o);
					fclose(f);
					free(line);
					return -ENOMEM;
				}
				w->seq = (int)r.u.dump.seq;
				snprintf(w->file, sizeof(w->file), "%s", r.u.dump.file);
				snprintf(w->ran_out, sizeof(w->ran_out), "%s", r.u.dump.ran_out ? r.u.dump.ran_out : "");
			}
			break;
		default:
			break;
		}
		json_object_put(o);
	}
	free(line);
	fclose(f);
	return 0;
}

int ooms_run_dumps_analyze(const char *dir, const struct ooms_run_dumps_opts *o, struct ooms_err *err)
{
	struct written *w;
	size_t n;
	int android, e, done = 0;

	if ((e = read_dumps(dir, &w, &n, &android)))
		return ooms_err_set(err, e, "%s: %s", dir,
				    e == -ENOENT ? "not a run directory (no " RUN_TIMELINE ")" : strerror(-e));
	for (size_t i = 0; i < n; i++) {
		char dump[4400], json[4400], txt[4400], name[64];
		struct ooms_fresh_request rq = {.json = json, .txt = txt};
		struct ooms_fresh_result res;

		snprintf(dump, sizeof(dump), "%s/%s", dir, w[i].file);
		run_name_dump_analysis(name, sizeof(name), w[i].seq, 0);
		snprintf(json, sizeof(json), "%s/%s", dir, name);
		run_name_dump_analysis(name, sizeof(name), w[i].seq, 1);
		snprintf(txt, sizeof(txt), "%s/%s", dir, name);
		if (access(json, F_OK) == 0 || access(dump, R_OK) != 0)
			continue; /* analyzed by the run, or not pulled with it */
		rq.aopts.runtime = android ? RUNTIME_ANDROID : RUNTIME_JVM;
		rq.aopts.bitmap_w = 768; /* as the watch: KOOM's */
		rq.aopts.bitmap_h = 1366;
		rq.aopts.leak_classes = o->leak_classes;
		rq.aopts.nleak_classes = o->nleak_classes;
		rq.aopts.leak_ifs = o->leak_ifs;
		rq.aopts.nleak_ifs = o->nleak_ifs;
		rq.aopts.max_memory = o->max_memory;
		if (ooms_fresh_analyze(dump, w[i].ran_out, &rq, &res)) {
			if (o->say)
				o->say(o->ctx, "!! %s: not analyzed: %s", w[i].file, res.error);
			continue;
		}
		done++;
		if (o->say)
			o->say(o->ctx, "%s analyzed in %.1f s: %zu leak group(s)%s%s -> %s", w[i].file, res.analyze_ms / 1000,
			       res.leak_groups, res.top_leak[0] ? "; first: " : "", res.top_leak, name);
	}
	free(w);
	return done;
}
