#include "run/records.h"

#include <string.h>

static const char *const names[REC_MAX] = {
	[REC_UNKNOWN] = "unknown", [REC_START] = "start", [REC_SAMPLE] = "sample", [REC_CROSSING] = "crossing",
	[REC_DRIFT] = "drift", [REC_FAILURE] = "failure", [REC_DEATH] = "death", [REC_END] = "end",
	[REC_BIG_ALLOC] = "big_alloc", [REC_RUNTIME] = "runtime", [REC_GC] = "gc", [REC_OOM] = "oom",
	[REC_DUMP_START] = "dump_start", [REC_DUMP] = "dump",
};

const char *run_rec_name(enum run_rec r)
{
	return (unsigned)r < REC_MAX ? names[r] : names[REC_UNKNOWN];
}

enum run_rec run_rec_parse(const char *name)
{
	if (!name)
		return REC_UNKNOWN;
	if (!strcmp(name, "alloc_freed"))
		return REC_BIG_ALLOC;
	for (int r = 1; r < REC_MAX; r++)
		if (!strcmp(name, names[r]))
			return (enum run_rec)r;
	return REC_UNKNOWN;
}
