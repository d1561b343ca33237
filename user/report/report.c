/* The report and exports of a run directory, each file whole or absent. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "run/files.h"
#include "util/atomic_file.h"

static void say(void (*progress)(void *, const char *), void *ctx, const char *what)
{
	if (progress)
		progress(ctx, what);
}

int ooms_report_write(const char *dir, void (*progress)(void *ctx, const char *what), void *pctx, char *err,
		      size_t err_len)
{
	struct rundata rd;
	struct atomic_file af;
	char path[4200];
	int e;

	say(progress, pctx, "reading the run directory");
	if ((e = rundata_load(&rd, dir, err, err_len)))
		return e;
	say(progress, pctx, RUN_REPORT);
	snprintf(path, sizeof(path), "%s/" RUN_REPORT, dir);
	if ((e = atomic_open(&af, path)) == 0) {
		ooms_report_html(&rd, af.f);
		e = atomic_commit(&af);
	}
	if (!e) {
		say(progress, pctx, RUN_TRACE);
		snprintf(path, sizeof(path), "%s/" RUN_TRACE, dir);
		if ((e = atomic_open(&af, path)) == 0) {
			ooms_report_trace(&rd, af.f);
			e = atomic_commit(&af);
		}
	}
	if (!e && rd.allocs) {
		say(progress, pctx, RUN_PPROF);
		snprintf(path, sizeof(path), "%s/" RUN_PPROF, dir);
		if ((e = atomic_open(&af, path)) == 0) {
			fflush(af.f);
			if ((e = ooms_report_pprof(&rd, fileno(af.f))))
				atomic_abort(&af);
			else
				e = atomic_commit(&af);
		}
	}
	if (e)
		snprintf(err, err_len, "writing %s: %s", path, strerror(-e));
	rundata_free(&rd);
	return e;
}
