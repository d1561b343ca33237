/* Threshold detectors (detect.h): one small function per rule, run from a
 * table. Pure: the only state is struct ooms_detector; no I/O. */
#include "detect/detect.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

void ooms_detect_defaults(struct ooms_detect_config *cfg)
{
	/* KOOM 2.x counts and VmSize, Probe's fd ratio (docs/rules.md) */
	memset(cfg, 0, sizeof(*cfg));
	cfg->thread_count_limit = 750;
	cfg->thread_count_gap = 50;
	cfg->thread_count_polls = 3;
	cfg->fd_count_limit = 1000;
	cfg->fd_count_gap = 50;
	cfg->fd_count_polls = 3;
	cfg->fd_ratio = 0.95;
	cfg->thread_ratio = 0.90;
	cfg->vmsize_limit_kb = 3650000;
	cfg->vmsize_limit_64bit = 0;
	cfg->rearm_s = 30;
}

void ooms_detect_init(struct ooms_detector *d, const struct ooms_detect_config *cfg)
{
	memset(d, 0, sizeof(*d));
	d->cfg = *cfg;
	for (int r = 0; r < RULE_MAX; r++) {
		d->st[r].count = 0;
		d->st[r].last = -1;
		d->st[r].armed = 1;
		d->st[r].below_since = -1;
	}
}

/* What one rule says of one sample. SKIP: the rule could not look (unknown
 * figure, rule off, not applicable): the state stays as it was. */
enum verdict { SKIP, HOLDS, NOT };

/* KOOM 2.x "rising" rule. A poll counts when v is over the limit and has not
 * fallen by more than gap since the previous poll (KOOM compares against the
 * previous poll whether or not it counted); a poll that does not count ends
 * the run. The rule holds while the run is at least `polls` long. */
static enum verdict rising(struct ooms_rule_state *st, int64_t v, int64_t limit, int64_t gap,
			   int polls, const char *what, struct ooms_crossing *x)
{
	int counts;

	if (v < 0)
		return SKIP;
	x->value = v;
	x->limit = limit;
	if (polls < 1)
		polls = 1; /* 0 would make a non-counting poll "hold" */
	/* last - v rather than last - gap: cannot overflow, both are >= 0 */
	counts = v > limit && (st->last < 0 || st->last - v <= gap);
	st->last = v;
	if (!counts)
		st->count = 0;
	else if (st->count < INT_MAX)
		st->count++;
	if (st->count < polls)
		return NOT;
	snprintf(x->reason, sizeof(x->reason),
		 "%lld %s > %lld and not falling by more than %lld, %d polls in a row",
		 (long long)v, what, (long long)limit, (long long)gap, st->count);
	return HOLDS;
}

/* ceil(ratio * limit), the smallest figure that reaches the ratio, without
 * libm. The small relative slack keeps products a rounding error above an
 * integer at that integer (0.07 * 100 is 7.000000000000001 in doubles); the
 * clamp keeps the conversion defined for huge limits or ratios over 1. */
static int64_t ratio_threshold(double ratio, int64_t limit)
{
	double t = ratio * (double)limit;
	int64_t i;

	t -= t * 1e-12;
	if (t >= 9223372036854775807.0) /* 2^63 as a double */
		return INT64_MAX;
	if (t <= 1)
		return 1;
	i = (int64_t)t; /* truncation is floor here, t > 1 */
	return (double)i < t ? i + 1 : i;
}

static enum verdict rule_thread_count(struct ooms_detector *d, const struct ooms_sample *s,
				      struct ooms_crossing *x)
{
	return rising(&d->st[RULE_THREAD_COUNT], s->threads, d->cfg.thread_count_limit,
		      d->cfg.thread_count_gap, d->cfg.thread_count_polls, "threads", x);
}

static enum verdict rule_fd_count(struct ooms_detector *d, const struct ooms_sample *s,
				  struct ooms_crossing *x)
{
	return rising(&d->st[RULE_FD_COUNT], s->fds, d->cfg.fd_count_limit, d->cfg.fd_count_gap,
		      d->cfg.fd_count_polls, "open fds", x);
}

static enum verdict rule_fd_ratio(struct ooms_detector *d, const struct ooms_sample *s,
				  struct ooms_crossing *x)
{
	/* !(r > 0) also turns a NaN ratio off */
	if (!(d->cfg.fd_ratio > 0) || s->fds < 0 || s->fd_limit <= 0)
		return SKIP;
	x->value = s->fds;
	x->limit = ratio_threshold(d->cfg.fd_ratio, s->fd_limit);
	if (x->value < x->limit)
		return NOT;
	snprintf(x->reason, sizeof(x->reason), "%lld open fds >= %g%% of RLIMIT_NOFILE %lld",
		 (long long)s->fds, d->cfg.fd_ratio * 100, (long long)s->fd_limit);
	return HOLDS;
}

static enum verdict rule_thread_ratio(struct ooms_detector *d, const struct ooms_sample *s,
				      struct ooms_crossing *x)
{
	const char *src = s->thread_limit_src;

	if (!(d->cfg.thread_ratio > 0) || s->threads < 0 || s->thread_limit <= 0)
		return SKIP;
	x->value = s->threads;
	x->limit = ratio_threshold(d->cfg.thread_ratio, s->thread_limit);
	if (x->value < x->limit)
		return NOT;
	snprintf(x->reason, sizeof(x->reason), "thread count %lld >= %g%% of the thread limit %lld%s%s%s",
		 (long long)s->threads, d->cfg.thread_ratio * 100, (long long)s->thread_limit,
		 src ? " (" : "", src ? src : "", src ? ")" : "");
	return HOLDS;
}

/* KOOM only watches VmSize on 32-bit devices: a 64-bit address space does not
 * run out near 4 GB, so the rule is off there unless asked for. */
static enum verdict rule_vmsize(struct ooms_detector *d, const struct ooms_sample *s,
				struct ooms_crossing *x)
{
	if (d->cfg.vmsize_limit_kb <= 0 || s->vmsize_kb < 0 ||
	    (!s->is_32bit && !d->cfg.vmsize_limit_64bit))
		return SKIP;
	x->value = s->vmsize_kb;
	x->limit = d->cfg.vmsize_limit_kb;
	if (x->value <= x->limit)
		return NOT;
	snprintf(x->reason, sizeof(x->reason), "VmSize %lld kB > %lld kB (%s target)",
		 (long long)s->vmsize_kb, (long long)x->limit, s->is_32bit ? "32-bit" : "64-bit");
	return HOLDS;
}

typedef enum verdict (*rule_fn)(struct ooms_detector *, const struct ooms_sample *,
				struct ooms_crossing *);

/* The further step after which a rule that holds fires again. */
static int64_t step_of(const struct ooms_detector *d, enum ooms_rule r, const struct ooms_sample *s)
{
	int64_t step;

	switch (r) {
	case RULE_THREAD_COUNT: step = d->cfg.thread_count_limit; break;
	case RULE_FD_COUNT: step = d->cfg.fd_count_limit; break;
	case RULE_FD_RATIO: step = s->fd_limit / 10; break;
	case RULE_THREAD_RATIO: step = s->thread_limit / 10; break;
	default: step = d->cfg.vmsize_limit_kb / 10; break;
	}
	return step > 0 ? step : 1;
}

/* instant: the rule looks at one figure against a limit, with no history,
 * so it may also be checked on an event between samples. */
static const struct {
	const char *name;
	rule_fn fn;
	int instant;
} rules[RULE_MAX] = {
	[RULE_THREAD_COUNT] = { "thread_count", rule_thread_count, 0 },
	[RULE_FD_COUNT] = { "fd_count", rule_fd_count, 0 },
	[RULE_FD_RATIO] = { "fd_ratio", rule_fd_ratio, 1 },
	[RULE_THREAD_RATIO] = { "thread_ratio", rule_thread_ratio, 1 },
	[RULE_VMSIZE] = { "vmsize", rule_vmsize, 1 },
};

const char *ooms_rule_name(enum ooms_rule r)
{
	return (unsigned)r < RULE_MAX ? rules[r].name : "?";
}

uint64_t ooms_detect_recurred(const struct ooms_detector *d, enum ooms_rule r)
{
	return (unsigned)r < RULE_MAX ? d->st[r].recurred : 0;
}

static size_t feed(struct ooms_detector *d, const struct ooms_sample *s, struct ooms_crossing *out, size_t max,
		   int instant_only)
{
	size_t n = 0;

	for (int r = 0; r < RULE_MAX; r++) {
		struct ooms_crossing x;
		enum verdict v;

		if (instant_only && !rules[r].instant)
			continue;
		memset(&x, 0, sizeof(x));
		x.rule = (enum ooms_rule)r;
		struct ooms_rule_state *st = &d->st[r];
		int step = 0;

		v = rules[r].fn(d, s, &x); /* always run: the rising rules keep state */
		if (v == SKIP)
			continue;
		if (!st->armed) {
			if (x.value >= st->rearm_below)
				st->below_since = -1;
			else if (st->below_since < 0)
				st->below_since = s->t;
			if (v == NOT && x.value < st->rearm_below && s->t - st->below_since >= d->cfg.rearm_s)
				st->armed = 1; /* fell back well under, and stayed: may fire again */
			else if (v == HOLDS && x.value >= st->refire_at)
				step = 1;
			else if (v == HOLDS && !st->held)
				st->recurred++;
		}
		st->held = v == HOLDS;
		if (v != HOLDS || (!st->armed && !step))
			continue;
		/* A crossing that does not fit in out stays armed, so it is
		 * reported at the next sample that still holds, not lost. */
		if (n >= max)
			continue;
		if (step) {
			size_t len = strlen(x.reason);

			snprintf(x.reason + len, sizeof(x.reason) - len, " (up from %lld at the last crossing)",
				 (long long)st->fired_value);
		}
		st->armed = 0;
		st->below_since = -1;
		st->fired_value = x.value;
		st->rearm_below = x.limit - x.limit / 10;
		st->refire_at = x.value + step_of(d, (enum ooms_rule)r, s);
		out[n++] = x;
	}
	return n;
}

size_t ooms_detect_feed(struct ooms_detector *d, const struct ooms_sample *s,
			struct ooms_crossing *out, size_t max)
{
	return feed(d, s, out, max, 0);
}

size_t ooms_detect_feed_instant(struct ooms_detector *d, const struct ooms_sample *s,
				struct ooms_crossing *out, size_t max)
{
	return feed(d, s, out, max, 1);
}
