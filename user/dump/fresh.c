/* A fresh dump's analysis (fresh.h). */
#include "dump/fresh.h"

#include <stdio.h>
#include <string.h>
#include "analyze/findings.h"
#include "util/atomic_file.h"
#include "util/clock.h"

int ooms_fresh_analyze(const char *path, const char *oom_kind, const struct ooms_fresh_request *rq,
		       struct ooms_fresh_result *res)
{
	struct ooms_analyze_opts o = rq->aopts;
	struct ooms_analysis a;
	struct ooms_err err = {0};
	struct atomic_file af;
	double t0 = mono_ms();
	int e;

	memset(res, 0, sizeof(*res));
	if (oom_kind && oom_kind[0] && ooms_ran_out_parse(oom_kind, &o.ran_out))
		o.ran_out = OOMS_RAN_OUT_HEAP;
	if (rq->status)
		rq->status(rq->sctx, "analyzing");
	if (ooms_analyze(&a, path, &o, &err)) {
		/* cut to res->error as before (the precision keeps -Wformat-truncation content) */
		snprintf(res->error, sizeof(res->error), "%.*s", (int)sizeof(res->error) - 1, err.msg);
		return -1;
	}
	res->analyze_ms = mono_ms() - t0;
	res->leak_groups = a.ngroups;
	res->leak_objects = a.nleaks;
	if (a.ngroups)
		ooms_analysis_leak_line(&a, 0, res->top_leak, sizeof(res->top_leak));
	if ((e = atomic_open(&af, rq->json)) == 0) {
		ooms_analysis_json(&a, rq->top ? rq->top : 10, af.f);
		e = atomic_commit(&af);
	}
	if (!e && rq->txt && (e = atomic_open(&af, rq->txt)) == 0) {
		ooms_analysis_text(&a, rq->top ? rq->top : 10, af.f);
		e = atomic_commit(&af);
	}
	ooms_analysis_free(&a);
	if (e) {
		snprintf(res->error, sizeof(res->error), "writing the analysis: %s", strerror(-e));
		return -1;
	}
	res->analyzed = 1;
	return 0;
}
