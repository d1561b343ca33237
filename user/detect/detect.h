/* Threshold detectors: pure functions over the sample sequence.
 *
 * No kernel, no /proc, no I/O: a detector is fed samples one at a time and
 * says whether a rule crossed. Tested with scripted sequences. */
#ifndef OOMSCOPE_DETECT_H
#define OOMSCOPE_DETECT_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

enum ooms_rule {
	RULE_THREAD_COUNT = 0, /* KOOM 2.x: threads over a limit, not falling by more than a gap, N polls */
	RULE_FD_COUNT,         /* KOOM 2.x: fds over a limit, not falling by more than a gap, N polls */
	RULE_FD_RATIO,         /* Probe: fds >= ratio * RLIMIT_NOFILE */
	RULE_THREAD_RATIO,     /* threads >= ratio * tightest thread limit */
	RULE_VMSIZE,           /* VmSize over a limit (32-bit targets by default) */
	RULE_MAX,
};

struct ooms_detect_config {
	int64_t thread_count_limit;   /* default 750 */
	int64_t thread_count_gap;     /* default 50 */
	int thread_count_polls;       /* default 3 */
	int64_t fd_count_limit;       /* default 1000 */
	int64_t fd_count_gap;         /* default 50 */
	int fd_count_polls;           /* default 3 */
	double fd_ratio;              /* default 0.95; <= 0 disables */
	double thread_ratio;          /* default 0.90; <= 0 disables */
	int64_t vmsize_limit_kb;      /* default 3,650,000 for 32-bit targets; 0 = off */
	int vmsize_limit_64bit;       /* apply vmsize_limit_kb to 64-bit targets too */
	double rearm_s;               /* default 30: a rule re-arms once its figure has stayed under
				       * 90 % of its threshold this long (0: at once) */
};

/* A rule that crossed. The reason is a complete sentence with the numbers. */
struct ooms_crossing {
	enum ooms_rule rule;
	int64_t value;     /* the figure that crossed */
	int64_t limit;     /* what it was compared against */
	char reason[192];
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

struct ooms_detector {
	struct ooms_detect_config cfg;
	struct ooms_rule_state st[RULE_MAX];
};

void ooms_detect_defaults(struct ooms_detect_config *cfg);
void ooms_detect_init(struct ooms_detector *d, const struct ooms_detect_config *cfg);

/* Feed one sample. Writes up to max crossings into out; returns how many.
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
/* How often rule r held again without re-arming since its last crossing's
 * predecessor: the recurrences a report folds into one finding. */
uint64_t ooms_detect_recurred(const struct ooms_detector *d, enum ooms_rule r);

#endif
