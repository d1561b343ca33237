/* The report and exports of a run directory, each file whole or absent. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <stdlib.h>
#include "report/report.h"
#include "report/store.h"
#include "report/store_query.h"
#include "run/run_id.h"
#include "run/files.h"
#include "util/atomic_file.h"

static void say(void (*progress)(void *, const char *), void *ctx, const char *what)
{
	if (progress)
		progress(ctx, what);
}

int ooms_report_write(const char *dir, void (*progress)(void *ctx, const char *what), void *pctx,
		      struct ooms_err *err)
{
	return ooms_report_write_db(dir, NULL, progress, pctx, err);
}

/* The run into the store, and what the store says of its findings. */
static int lab_context(const char *dir, const char *db, struct report_lab *lab, struct store_seen **rows,
		       struct ooms_err *err)
{
	struct store *s = store_open(db, err);
	char id[RUN_ID_LEN + 1];
	int rc = -1;

	*rows = NULL;
	if (!s)
		return -1;
	if (store_add_run_id(s, dir, id, err) == 0 && store_seen_elsewhere(s, id, rows, &lab->n, err) == 0) {
		lab->backend = store_backend(s);
		lab->rows = *rows;
		rc = 0;
	}
	store_close(s);
	return rc;
}

int ooms_report_write_db(const char *dir, const char *db, void (*progress)(void *ctx, const char *what), void *pctx,
			 struct ooms_err *err)
{
	struct report_lab lab = {0};
	struct store_seen *seen = NULL;
	struct rundata rd;
	struct atomic_file af;
	char path[4200];
	int e;

	if (db) {
		say(progress, pctx, "the lab's store");
		if (lab_context(dir, db, &lab, &seen, err))
			return ooms_err_recode(err, -EIO);
	}
	say(progress, pctx, "reading the run directory");
	if ((e = rundata_load(&rd, dir, err))) {
		free(seen);
		return e;
	}
	say(progress, pctx, RUN_REPORT);
	snprintf(path, sizeof(path), "%s/" RUN_REPORT, dir);
	if ((e = atomic_open(&af, path)) == 0) {
		ooms_report_html(&rd, db ? &lab : NULL, af.f);
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
	if (!e && rd.have_allocs) {
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
	if (!e && rd.have_memory && rd.memory.ngroups) {
		say(progress, pctx, RUN_PPROF_MEMORY);
		snprintf(path, sizeof(path), "%s/" RUN_PPROF_MEMORY, dir);
		if ((e = atomic_open(&af, path)) == 0) {
			fflush(af.f);
			if ((e = ooms_report_pprof_memory(&rd, fileno(af.f))))
				atomic_abort(&af);
			else
				e = atomic_commit(&af);
		}
	}
	if (e)
		ooms_err_set(err, e, "writing %s: %s", path, strerror(-e));
	rundata_free(&rd);
	free(seen);
	return e;
}
