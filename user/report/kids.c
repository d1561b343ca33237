/* The processes a run's target started (kids.h). */
#define _GNU_SOURCE
#include "report/kids.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/rundata.h"
#include "run/files.h"

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t report_kids_list(const char *dir, char **names)
{
	char path[4200];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/" RUN_CHILDREN, dir);
	if (!(d = opendir(path)))
		return 0;
	while ((e = readdir(d)) && n < KIDS_MAX)
		if (e->d_name[0] != '.' && e->d_type == DT_DIR && (names[n] = strdup(e->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	return n;
}

void report_kids_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

int report_kid_summary(const char *kdir, struct kid_summary *out)
{
	struct rundata kid;

	memset(out, 0, sizeof(*out));
	memset(&kid, 0, sizeof(kid));
	if (rundata_load(&kid, kdir, NULL) != 0)
		return -1;
	for (size_t k = 0; k < kid.nevents; k++)
		out->crossings += kid.events[k].kind == REC_CROSSING;
	snprintf(out->how, sizeof(out->how), "%s",
		 kid.have_death && kid.death.how ? kid.death.how
		 : kid.ended && kid.end_reason[0] ? kid.end_reason
						 : "no end recorded");
	out->have_failures = kid.have_failures;
	out->failures = kid.have_failures ? kid.failures.count : 0;
	rundata_free(&kid);
	return 0;
}
