/* The Java heap rule: when to take a heap dump. Pure: fed one poll of heap
 * used/max at a time, it says whether to dump now, with the reason.
 *
 * Variants (docs/rules.md):
 *  - KOOM 2.x (default): ratio by max heap (max >= 502 MB: 0.80; >= 246 MB:
 *    0.85; else 0.90). A poll counts when the ratio is over it and not below
 *    the previous poll's ratio by more than a tolerance (0.05); 3 counted polls
 *    in a row dump. "Fast huge": a ratio over 0.90, or used heap up by more than
 *    350 MB since the previous poll, dumps at once.
 *  - KOOM 1.x: ratio by max heap (>= 510 MB: 0.80; >= 250 MB: 0.85; >= 128 MB:
 *    0.90; else 0.80); 3 polls in a row over it while used did not fall.
 *  - Probe: used at a ratio of max (0.90) at one poll.
 *  - trend (oomscope's; on by default beside the variant: "koom2+trend"):
 *    the live set after each GC, its slope over the last GCs (Theil-Sen: the
 *    median of the pairwise slopes, so one odd GC does not swing it), and
 *    the time to exhaustion (max - live) / slope. Dumps when that time falls
 *    under a horizon (the larger of 10 s and 3x the last dump's duration)
 *    and the live set is at least half of max. Fed by GC events, not polls:
 *    a leak that fills the heap between two polls is still seen coming.
 * Every figure is configurable. Dumps are rate-limited: at most max_dumps per
 * run, at least cooldown_s apart; a rule that holds while limited is
 * reported once (suppressed) until it stops holding. */
#ifndef OOMSCOPE_HEAP_RULE_H
#define OOMSCOPE_HEAP_RULE_H

#include <stdint.h>

enum ooms_heap_variant { HEAP_RULE_KOOM2 = 0, HEAP_RULE_KOOM1, HEAP_RULE_PROBE };

struct ooms_heap_rule_config {
	enum ooms_heap_variant variant;
	double ratio;        /* > 0: this ratio of max; 0: the variant's table by max heap */
	int polls;           /* counted polls in a row that dump (KOOM 3, Probe 1) */
	double tolerance;    /* KOOM 2.x: how far the ratio may dip and still count (0.05) */
	double huge_ratio;   /* KOOM 2.x fast huge: over this ratio, dump at once (0.90; 0 = off) */
	int64_t huge_delta;  /* KOOM 2.x fast huge: used up by more than this since the last poll (350 MB; 0 = off) */
	double interval_s;   /* poll period, for the collector (KOOM 2.x 15 s, 1.x 5 s, Probe 1 s) */
	int max_dumps;       /* dumps per run at most (0 = none: watch only) */
	int trend;           /* 0: the variant alone; 1: the variant or the trend; 2: the trend alone */
	double horizon_s;    /* trend: dump when exhaustion is nearer than this (10 s; the collector
			      * raises it to 3x the last dump's duration) */
	double cooldown_s;   /* seconds between dumps at least */
};

struct ooms_heap_poll {
	double t;            /* seconds since attach */
	int64_t used;        /* bytes */
	int64_t max;         /* bytes; <= 0 when unknown (the poll is skipped) */
	int busy;            /* a dump is still being written: the rule may hold, not dump */
};

enum ooms_heap_verdict {
	HEAP_QUIET = 0,      /* nothing to do */
	HEAP_DUMP,           /* the rule holds: dump now */
	HEAP_SUPPRESSED,     /* the rule holds, a rate limit says no (reported once) */
};

struct ooms_heap_decision {
	enum ooms_heap_verdict verdict;
	const char *rule;    /* "heap_ratio", "heap_fast_ratio", "heap_fast_delta" */
	double ratio;        /* used / max at this poll */
	double threshold;    /* the ratio it was compared against */
	char reason[256];    /* a sentence with the numbers */
};

#define OOMS_TREND_POINTS 8

struct ooms_heap_rule {
	struct ooms_heap_rule_config cfg;
	double gc_t[OOMS_TREND_POINTS];  /* the live set after the last GCs (a ring) */
	double gc_live[OOMS_TREND_POINTS];
	int ngc, gc_next;
	int count;           /* counted polls in a row */
	double last_ratio;   /* previous poll (-1 before the first) */
	int64_t last_used;
	int dumps;           /* dumps asked for so far */
	double last_dump_t;
	int suppressed;      /* a suppressed crossing was reported and the rule still holds */
};

/* The heap rules' names, as crossings carry them (NULL-ended). */
enum { HEAP_R_RATIO, HEAP_R_FAST_RATIO, HEAP_R_FAST_DELTA, HEAP_R_TREND, HEAP_R_MAX };
extern const char *const ooms_heap_rules[HEAP_R_MAX + 1];

/* The variant's defaults (polls, tolerance, fast-huge figures, interval);
 * rate limits: 3 dumps per run, 300 s apart; the trend on, 10 s horizon. */
void ooms_heap_rule_defaults(struct ooms_heap_rule_config *cfg, enum ooms_heap_variant v);
void ooms_heap_rule_init(struct ooms_heap_rule *r, const struct ooms_heap_rule_config *cfg);
/* The threshold ratio for a max heap of max bytes under cfg. */
double ooms_heap_rule_threshold(const struct ooms_heap_rule_config *cfg, int64_t max);
/* One poll. Fills d (always) and returns d->verdict. */
enum ooms_heap_verdict ooms_heap_rule_feed(struct ooms_heap_rule *r, const struct ooms_heap_poll *p,
					   struct ooms_heap_decision *d);
/* The live set after a GC (bytes used after it, max the heap's): with the
 * trend on, fills d and returns HEAP_DUMP, HEAP_SUPPRESSED (rate limits,
 * as for polls) or HEAP_QUIET. horizon_s: the horizon now (0: the config's). */
enum ooms_heap_verdict ooms_heap_rule_gc(struct ooms_heap_rule *r, double t, int64_t live, int64_t max,
					 double horizon_s, int busy, struct ooms_heap_decision *d);
/* The trend's slope (bytes/s) over the points held, NAN with fewer than 4. */
double ooms_heap_trend_slope(const struct ooms_heap_rule *r);
/* "koom2", "koom1", "probe", "trend", and "VARIANT+trend" into cfg's
 * variant and trend; -1 for an unknown name. */
int ooms_heap_rule_parse(const char *name, enum ooms_heap_variant *variant, int *trend);
/* "koom2", "koom1", "probe" <-> the enum; -1 for an unknown name. */
int ooms_heap_variant_parse(const char *name);
const char *ooms_heap_variant_name(enum ooms_heap_variant v);
/* The rule as a name: "koom2+trend", "trend", "probe" ... (static buffer) */
const char *ooms_heap_rule_name(const struct ooms_heap_rule_config *cfg);

#endif
