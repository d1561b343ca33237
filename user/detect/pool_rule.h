/* A JVM's other ways to run out (issue 36): the rules for its bounded
 * non-heap pools and for GC distress. Pure, as the heap rule: fed figures,
 * they say whether to dump now, with the reason.
 *
 * Pools (class metadata with -XX:MaxMetaspaceSize, the compressed class
 * space, direct buffer memory): a poll dumps when used is at `ratio` of max
 * (0.90), or when used is at least half of max and the slope of the last
 * polls says the pool is exhausted within `horizon_s` (10 s). Once per pool
 * while the rule holds; again only after the pool fell 10 points under
 * where it fired and under the ratio (a trend fires below the ratio: a
 * pause in the rise, the leaker's own during the dump, is no new crossing).
 *
 * GC distress: in the last `window_s` (1 s), `min_gcs` collections (50: a
 * collector running back to back) or `share` of the time in pauses (0.30)
 * or `min_full` full collections (3), while the heap after the last one is
 * still at least `min_used` of max (0.40): the collector is losing, whatever
 * fraction of max is "used" (HotSpot's own GC overhead limit, 98 % of the
 * time reclaiming under 2 %, fires only at the end, and on Parallel only).
 * Once per run. */
#ifndef OOMSCOPE_POOL_RULE_H
#define OOMSCOPE_POOL_RULE_H

#include <stdint.h>

#define OOMS_POOL_POINTS 4

struct ooms_pool_rule {
	const char *name;   /* "metaspace": the rules' names start with it */
	const char *title;  /* "Metaspace": the reasons' subject */
	double ratio, horizon_s;
	double t[OOMS_POOL_POINTS];
	int64_t used[OOMS_POOL_POINTS];
	int n;              /* points held (the newest last) */
	int holding;        /* fired, and not fallen since */
	int64_t fired_at;   /* used when it fired */
};

struct ooms_pool_decision {
	int dump;           /* 1: dump now */
	char rule[48];      /* "metaspace_ratio", "direct_trend", "gc_distress" */
	char reason[256];
	int64_t value, limit;
};

void ooms_pool_rule_init(struct ooms_pool_rule *r, const char *name, const char *title);
/* One poll (t in seconds; used, max in bytes; max <= 0: no limit, skipped). */
int ooms_pool_rule_feed(struct ooms_pool_rule *r, double t, int64_t used, int64_t max, struct ooms_pool_decision *d);

#define OOMS_GC_RING 256

struct ooms_gc_rule {
	double window_s, share, min_used;
	int min_gcs, min_full;
	double t[OOMS_GC_RING], pause_ms[OOMS_GC_RING];
	uint8_t full[OOMS_GC_RING];
	int n, next;
	int fired;          /* it has said so: once per run */
};

void ooms_gc_rule_init(struct ooms_gc_rule *r);
/* One collection's end (t in seconds, its pause, full or not, the heap used
 * after it and the heap's max). */
int ooms_gc_rule_feed(struct ooms_gc_rule *r, double t, double pause_ms, int full, int64_t used_after, int64_t max,
		      struct ooms_pool_decision *d);

#endif
