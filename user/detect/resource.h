/* The watched resources as data: one row each (its name in the files, its
 * words in the reasons, the limit it runs out against, its rules'
 * defaults, the snapshot a crossing writes, the failures that are it
 * running out, its chart). The sampler fills one figure per row, the
 * rules (detect.c) run every rule on every row, the collector writes the
 * row's snapshot at a crossing, the timeline writes and reads the figures
 * by the rows' names and the report draws a chart per row.
 *
 * Adding a resource (docs/design.md): an enum entry and a row here
 * (resource.h, resource.c), and its counting code in the collector's
 * sampler (coll_resources.c). Pure: no I/O. */
#ifndef OOMSCOPE_RESOURCE_H
#define OOMSCOPE_RESOURCE_H

#include <stdint.h>

enum ooms_res {
	RES_THREADS = 0, /* live threads, against the tightest thread limit */
	RES_FDS,         /* open fds, against RLIMIT_NOFILE */
	RES_VMSIZE,      /* VmSize in kB, against RLIMIT_AS (and, 32-bit, KOOM's VmSize limit) */
	RES_MEMFD,       /* fds on a memfd or ashmem region, against RLIMIT_NOFILE */
	RES_MEMORY,      /* kB of memory no reclaim can take back (anonymous, shared, swapped), against
			  * the room the tightest limit leaves: a memory cgroup's, the system's, RLIMIT_DATA */
	RES_MEMSTALL,    /* ms a second that tasks stalled on memory (PSI "some", avg10), against 1000 */
	RES_MAX,
};

/* The rules every resource gets; rule number = resource * RK_MAX + kind. */
enum ooms_rule_kind {
	RK_COUNT = 0,    /* KOOM 2.x's rising count (VmSize: KOOM's limit, over it once) */
	RK_RATIO,        /* the figure at a ratio of its limit (Probe's fd rule) */
	RK_TREND,        /* rising across the last samples, its limit reached within a horizon */
	RK_MAX,
};

/* The snapshot a resource's crossing writes (BASE-N.json). */
enum ooms_snap { SNAP_THREADS = 0, SNAP_FDS, SNAP_VMSIZE, SNAP_MEMORY, SNAP_MAX };

/* The failing calls that are a resource running out (failures.c's kinds). */
enum ooms_fail_kind { FAIL_FDS, FAIL_THREADS, FAIL_MEMORY, FAIL_KIND_MAX };

/* One figure of a sample: value -1 unknown; limit <= 0 none known. */
struct ooms_res_fig {
	int64_t value, limit;
	const char *limit_src; /* which limit it was (static string), NULL: the row's limit_name */
};

/* A resource's rule settings (the CLI sets them; 0 turns a rule off). */
struct ooms_res_rules {
	int64_t count_limit; /* the count rule's limit (VmSize: kB) */
	int64_t count_gap;   /* how far it may fall between polls and still count */
	int count_polls;     /* polls in a row */
	double ratio;        /* of the limit */
	double trend_s;      /* the trend's horizon: fires when the limit is nearer than this */
};

struct ooms_resource {
	const char *name;       /* the sample record's key, the settings' and the charts' id: "fds" */
	const char *limit_key;  /* the sample record's key of its limit: "fd_limit" */
	const char *rules[RK_MAX]; /* the rules' names: "fd_count", "fd_ratio", "fd_trend" */
	const char *what;       /* the figure in a reason: "open fds" (kb: after its size, "of VmSize") */
	const char *limit_name; /* the limit in a reason when the figure names none: "RLIMIT_NOFILE" */
	const char *title;      /* the chart's title */
	const char *unit;       /* the chart's unit */
	const char *color;      /* the chart's line */
	int chart;              /* a chart of its own (VmSize is drawn beside RSS) */
	enum ooms_snap snap;    /* the snapshot a crossing writes */
	int fail_kind;          /* the failures that are it running out (enum ooms_fail_kind), -1: none */
	int absolute;           /* the count rule is a limit crossed once (KOOM's VmSize), not a rising count */
	int count_32bit_only;   /* that limit applies to 32-bit targets unless asked (VmSize) */
	int trend_from_pct;     /* the trend looks from this share of the limit on (0: half) */
	int kb;                 /* the figure and its limit are in kB: said in MB or GB, a rate in MB/s */
	struct ooms_res_rules defaults;
};

extern const struct ooms_resource ooms_resources[RES_MAX];
/* "threads", "fds", "vmsize", "memory": the snapshots' file bases */
extern const char *const ooms_snap_base[SNAP_MAX];

/* The resource a rule name belongs to and its kind; -1 when none. */
int ooms_resource_rule(const char *rule, enum ooms_rule_kind *kind);
/* The resource named name ("fds"), -1 when none. */
int ooms_resource_find(const char *name);

#endif
