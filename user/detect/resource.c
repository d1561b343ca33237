/* The watched resources' table (resource.h). The count rules' numbers are
 * KOOM 2.x's, the fd ratio Probe's (docs/rules.md); the trends are
 * oomscope's: 60 s of warning before a limit. */
#include "detect/resource.h"

#include <string.h>

const char *const ooms_snap_base[SNAP_MAX] = {"threads", "fds", "vmsize", "memory"};

const struct ooms_resource ooms_resources[RES_MAX] = {
	[RES_THREADS] = {
		.name = "threads", .limit_key = "thread_limit", .rules = {"thread_count", "thread_ratio", "thread_trend"},
		.what = "threads", .limit_name = "the thread limit",
		.title = "Threads", .unit = "live threads", .color = "#7b3fb3", .chart = 1,
		.snap = SNAP_THREADS, .fail_kind = FAIL_THREADS,
		.defaults = {.count_limit = 750, .count_gap = 50, .count_polls = 3, .ratio = 0.90, .trend_s = 60},
	},
	[RES_FDS] = {
		.name = "fds", .limit_key = "fd_limit", .rules = {"fd_count", "fd_ratio", "fd_trend"},
		.what = "open fds", .limit_name = "RLIMIT_NOFILE",
		.title = "Open file descriptors", .unit = "fds", .color = "#00838f", .chart = 1,
		.snap = SNAP_FDS, .fail_kind = FAIL_FDS,
		.defaults = {.count_limit = 1000, .count_gap = 50, .count_polls = 3, .ratio = 0.95, .trend_s = 60},
	},
	/* KOOM watches VmSize on 32-bit devices only: a 64-bit address space
	 * does not run out near 4 GB (the count rule is off there unless asked
	 * for); RLIMIT_AS, where one is set, is a limit on either */
	[RES_VMSIZE] = {
		.name = "vmsize_kb", .limit_key = "rlimit_as_kb", .rules = {"vmsize", "vmsize_ratio", "vmsize_trend"},
		.what = "of VmSize", .limit_name = "RLIMIT_AS", .kb = 1,
		.title = "Address space (VmSize)", .unit = "kB", .color = "#6b7385",
		.snap = SNAP_VMSIZE, .fail_kind = FAIL_MEMORY, .absolute = 1, .count_32bit_only = 1,
		.defaults = {.count_limit = 3650000, .count_polls = 1, .ratio = 0.90, .trend_s = 60},
	},
	/* Android's CursorWindows, GraphicBuffers and shared memory regions
	 * (ashmem, memfd behind it on newer releases): each an fd, each under
	 * RLIMIT_NOFILE, and a leak of them is the fd leak's commonest kind
	 * there. No reference tool has a count for them: the ratio (half the
	 * fds allowed) and the trend. */
	[RES_MEMFD] = {
		.name = "memfd", .limit_key = "memfd_limit", .rules = {"memfd_count", "memfd_ratio", "memfd_trend"},
		.what = "memfd/ashmem fds", .limit_name = "RLIMIT_NOFILE",
		.title = "Shared memory fds (memfd, ashmem)", .unit = "fds", .color = "#c2185b", .chart = 1,
		.snap = SNAP_FDS, .fail_kind = -1,
		.defaults = {.ratio = 0.50, .trend_s = 60},
	},
	/* What the killers count: the memory no reclaim can take back (page
	 * cache is reclaimed before anyone is killed: growth there is no leak),
	 * against the room the tightest limit leaves it, the target's own
	 * figure plus what is left under that limit (coll_resources.c). No
	 * reference tool has a rule for it on Linux; KOOM's and Matrix's
	 * native monitors look for leaks, not limits: a ratio, and the trend. */
	[RES_MEMORY] = {
		.name = "memory_kb", .limit_key = "memory_limit_kb", .rules = {"memory", "memory_ratio", "memory_trend"},
		.what = "of memory (anonymous, shared, swapped)", .limit_name = "the memory limit", .kb = 1,
		.title = "Memory (anonymous + shared + swapped)", .unit = "kB", .color = "#d84315", .chart = 1,
		.snap = SNAP_MEMORY, .fail_kind = -1, .absolute = 1,
		/* memory runs out fast (a leak of 32 MB/s fills 400 MB in 12 s):
		 * its trend looks from a quarter of the limit on */
		.trend_from_pct = 25,
		.defaults = {.ratio = 0.85, .trend_s = 60},
	},
	/* Memory pressure, as lmkd and systemd-oomd watch it: the share of time
	 * some task waited for memory (/proc/pressure/memory, "some", over 10 s)
	 * in ms a second. lmkd's medium level is a 70-100 ms stall in a second
	 * (memory-facts.md): the rule fires at 100; a PSI trigger at the same
	 * share wakes the collector between samples (coll_pressure). */
	[RES_MEMSTALL] = {
		.name = "memory_stall_ms", .limit_key = "memory_stall_limit_ms",
		.rules = {"memory_stall", "memory_stall_ratio", "memory_stall_trend"},
		.what = "ms a second stalled on memory (PSI some)", .limit_name = "a second",
		.title = "Memory pressure (PSI some)", .unit = "ms stalled a second", .color = "#8d6e63", .chart = 1,
		.snap = SNAP_MEMORY, .fail_kind = -1, .absolute = 1,
		.defaults = {.count_limit = 100, .count_polls = 1},
	},
};

int ooms_resource_rule(const char *rule, enum ooms_rule_kind *kind)
{
	for (int r = 0; r < RES_MAX; r++)
		for (int k = 0; k < RK_MAX; k++)
			if (!strcmp(ooms_resources[r].rules[k], rule)) {
				if (kind)
					*kind = (enum ooms_rule_kind)k;
				return r;
			}
	return -1;
}

int ooms_resource_find(const char *name)
{
	for (int r = 0; r < RES_MAX; r++)
		if (!strcmp(ooms_resources[r].name, name))
			return r;
	return -1;
}
