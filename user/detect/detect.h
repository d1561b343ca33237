/* Threshold detectors: pure functions over the sample sequence.
 *
 * No kernel, no /proc, no I/O: a detector is fed samples one at a time and
 * says whether a rule crossed. Tested with scripted sequences. */
#ifndef OOMSCOPE_DETECT_H
#define OOMSCOPE_DETECT_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

/* Every resource (resource.h) gets every rule kind: rule number
 * resource * RK_MAX + kind, named by its row ("fd_ratio"). */
#define OOMS_RULE(res, kind) ((res) * RK_MAX + (kind))

enum ooms_rule {
	RULE_THREAD_COUNT = OOMS_RULE(RES_THREADS, RK_COUNT), /* KOOM 2.x: over a limit, not falling by more than a gap, N polls */
	RULE_THREAD_RATIO = OOMS_RULE(RES_THREADS, RK_RATIO), /* threads >= ratio * tightest thread limit */
	RULE_FD_COUNT = OOMS_RULE(RES_FDS, RK_COUNT),
	RULE_FD_RATIO = OOMS_RULE(RES_FDS, RK_RATIO),         /* Probe: fds >= ratio * RLIMIT_NOFILE */
	RULE_VMSIZE = OOMS_RULE(RES_VMSIZE, RK_COUNT),        /* VmSize over a limit (32-bit targets by default) */
	RULE_MAX = RES_MAX * RK_MAX,
};

struct ooms_detect_config {
	struct ooms_res_rules res[RES_MAX]; /* each resource's rules (resource.c's defaults) */
	int vmsize_limit_64bit;       /* apply VmSize's count rule to 64-bit targets too */
	double rearm_s;               /* default 30: a rule re-arms once its figure has stayed under
				       * 90 % of its threshold this long (0: at once) */
};

/* A rule that crossed. The reason is a complete sentence with the numbers. */
struct ooms_crossing {
	enum ooms_rule rule;
	int64_t value;     /* the figure that crossed */
	int64_t limit;     /* what it was compared against (a trend: the limit it heads for) */
	char reason[320];
};

struct ooms_rule_state {
	int count;         /* consecutive polls the rising rule has counted */
	int64_t last;      /* figure at the previous poll (-1 before the first) */
	int armed;         /* 1 while the rule may fire */
	/* after a crossing: the rule re-arms once its figure is under
	 * rearm_below (90 % of the threshold it crossed), and fires again if
	 * the figure reaches refire_at (a further step) first */
	int64_t rearm_below, refire_at, fired_value;
	int held;          /* it held at the last look */
	double below_since; /* when the figure went under rearm_below (-1: it is not) */
	uint64_t recurred; /* it held again while disarmed (a count oscillating at a limit) */
};

#define OOMS_TREND_SAMPLES 6

/* A resource's last figures, for its trend. */
struct ooms_res_history {
	double t[OOMS_TREND_SAMPLES];
	int64_t v[OOMS_TREND_SAMPLES];
	int n;             /* held, the newest last */
};

struct ooms_detector {
	struct ooms_detect_config cfg;
	struct ooms_rule_state st[RULE_MAX];
	struct ooms_res_history hist[RES_MAX];
};

void ooms_detect_defaults(struct ooms_detect_config *cfg);
void ooms_detect_init(struct ooms_detector *d, const struct ooms_detect_config *cfg);

/* Feed one sample. Writes up to max crossings into out; returns how many.
 * The trend (every resource's): its figure rose across the last samples
 * (at least 4, both halves of them rising), it is at least half of its
 * limit (memory: a quarter, its row's trend_from_pct) and under the ratio
 * rule's line, and at the slope from the oldest
 * to the newest the limit is nearer than trend_s (60 s).
 * A rule fires once when it starts to hold, then again only after its
 * figure stayed under 90 % of the threshold it crossed for rearm_s (30 s),
 * or when the figure rose a further step while it held (10 % of the hard
 * limit for the ratio rules and VmSize, the rule's own limit for the count
 * rules): a count oscillating at a limit, or one that fills and empties
 * its table every second, is one crossing, its recurrences counted. */
size_t ooms_detect_feed(struct ooms_detector *d, const struct ooms_sample *s,
			struct ooms_crossing *out, size_t max);

/* The same for the rules that need no history (the ratios, VmSize), fed a
 * sample whose figures come from an event: a burst that exhausts a limit
 * between two samples still crosses, before the process dies. Shares the
 * rules' armed state with ooms_detect_feed, so a crossing fires once. */
size_t ooms_detect_feed_instant(struct ooms_detector *d, const struct ooms_sample *s,
				struct ooms_crossing *out, size_t max);

const char *ooms_rule_name(enum ooms_rule r); /* "thread_count", "fd_ratio", ... */
/* The rule named name ("fd_trend"); -1 when none. */
int ooms_rule_find(const char *name);
/* Sets rule name's number ("fd_count=800", "fd_count_gap=20",
 * "fd_count_polls=2", "fd_ratio=0.9", "fd_trend=30"; 0 turns a rule
 * off). 0, or -1 for a name or number it does not take. */
int ooms_detect_set(struct ooms_detect_config *cfg, const char *name_eq_value);
/* Every rule's name, space-separated, into buf (for an error that lists them). */
void ooms_rule_names(char *buf, size_t len);
/* How often rule r held again without re-arming since its last crossing's
 * predecessor: the recurrences a report folds into one finding. */
uint64_t ooms_detect_recurred(const struct ooms_detector *d, enum ooms_rule r);

#endif
