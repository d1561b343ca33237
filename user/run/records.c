#include "run/records.h"
#include "util/names.h"

#include <string.h>

static const char *const names[REC_MAX] = {
	[REC_UNKNOWN] = "unknown", [REC_START] = "start", [REC_SAMPLE] = "sample", [REC_CROSSING] = "crossing",
	[REC_DRIFT] = "drift", [REC_FAILURE] = "failure", [REC_DEATH] = "death", [REC_END] = "end",
	[REC_BIG_ALLOC] = "big_alloc", [REC_RUNTIME] = "runtime", [REC_GC] = "gc", [REC_OOM] = "oom",
	[REC_DUMP_START] = "dump_start", [REC_DUMP] = "dump",
};

const char *run_rec_name(enum run_rec r)
{
	return names_get(names, NAMES_N(names), 0, r, names[REC_UNKNOWN]);
}

enum run_rec run_rec_parse(const char *name)
{
	if (name && !strcmp(name, "alloc_freed"))
		return REC_BIG_ALLOC;
	return (enum run_rec)names_find(names + 1, NAMES_N(names) - 1, 1, name, REC_UNKNOWN);
}
