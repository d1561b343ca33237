/* The Java heap rule (heap_rule.h). Pure: no I/O, the only state is struct
 * ooms_heap_rule. */
#include "detect/heap_rule.h"
#include "util/names.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ooms_heap_rules[HEAP_R_MAX + 1] = {"heap_ratio", "heap_fast_ratio", "heap_fast_delta", "heap_trend", NULL};

#define MB (1024.0 * 1024.0)

void ooms_heap_rule_defaults(struct ooms_heap_rule_config *cfg, enum ooms_heap_variant v)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->variant = v;
	cfg->polls = 3;
	cfg->max_dumps = 3;
	cfg->cooldown_s = 300;
	cfg->trend = 1;
	cfg->horizon_s = 10;
	switch (v) {
	case HEAP_RULE_KOOM2:
		cfg->tolerance = 0.05;
		cfg->huge_ratio = 0.90;
		cfg->huge_delta = 350LL << 20;
		cfg->interval_s = 15;
		break;
	case HEAP_RULE_KOOM1:
		cfg->interval_s = 5;
		break;
	case HEAP_RULE_PROBE:
		cfg->ratio = 0.90;
		cfg->polls = 1;
		cfg->interval_s = 1;
		break;
	}
}

void ooms_heap_rule_init(struct ooms_heap_rule *r, const struct ooms_heap_rule_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	r->last_ratio = -1;
	r->last_used = -1;
}

double ooms_heap_rule_threshold(const struct ooms_heap_rule_config *cfg, int64_t max)
{
	double mb = (double)max / MB;

	if (cfg->ratio > 0)
		return cfg->ratio;
	switch (cfg->variant) {
	case HEAP_RULE_KOOM1:
		return mb >= 510 ? 0.80 : mb >= 250 ? 0.85 : mb >= 128 ? 0.90 : 0.80;
	case HEAP_RULE_PROBE:
		return 0.90;
	case HEAP_RULE_KOOM2:
	default:
		return mb >= 502 ? 0.80 : mb >= 246 ? 0.85 : 0.90;
	}
}

/* Whether this poll counts towards the variant's "N polls in a row". */
static int poll_counts(const struct ooms_heap_rule *r, const struct ooms_heap_poll *p, double ratio, double thr)
{
	switch (r->cfg.variant) {
	case HEAP_RULE_KOOM1: /* over, and used did not fall */
		return ratio > thr && (r->last_used < 0 || p->used >= r->last_used);
	case HEAP_RULE_PROBE: /* reached */
		return ratio >= thr;
	case HEAP_RULE_KOOM2:
	default: /* over, and the ratio did not dip by more than the tolerance */
		return ratio > thr && (r->last_ratio < 0 || ratio >= r->last_ratio - r->cfg.tolerance);
	}
}

static enum ooms_heap_verdict limited(struct ooms_heap_rule *r, int holds, double t, int busy,
				      struct ooms_heap_decision *d);

enum ooms_heap_verdict ooms_heap_rule_feed(struct ooms_heap_rule *r, const struct ooms_heap_poll *p,
					   struct ooms_heap_decision *d)
{
	const struct ooms_heap_rule_config *c = &r->cfg;
	double ratio, thr;
	int holds = 0, polls = c->polls < 1 ? 1 : c->polls;

	memset(d, 0, sizeof(*d));
	if (p->max <= 0 || p->used < 0) {
		snprintf(d->reason, sizeof(d->reason), "heap size unknown at this poll");
		return d->verdict = HEAP_QUIET;
	}
	ratio = (double)p->used / (double)p->max;
	thr = ooms_heap_rule_threshold(c, p->max);
	d->ratio = ratio;
	d->threshold = thr;

	if (c->trend == 2) { /* the trend alone: polls only keep the figures */
		r->last_ratio = ratio;
		r->last_used = p->used;
		return d->verdict = HEAP_QUIET;
	}
	if (poll_counts(r, p, ratio, thr)) {
		if (r->count < INT_MAX)
			r->count++;
	} else {
		r->count = 0;
	}
	if (r->count >= polls) {
		holds = 1;
		d->rule = ooms_heap_rules[HEAP_R_RATIO];
		snprintf(d->reason, sizeof(d->reason),
			 "Java heap %.1f MB of %.1f MB (%.1f%%) over %.0f%% for %d polls in a row (%s)",
			 p->used / MB, p->max / MB, ratio * 100, thr * 100, r->count, ooms_heap_variant_name(c->variant));
	} else if (c->variant == HEAP_RULE_KOOM2 && c->huge_ratio > 0 && ratio > c->huge_ratio) {
		holds = 1;
		d->rule = ooms_heap_rules[HEAP_R_FAST_RATIO];
		d->threshold = c->huge_ratio;
		snprintf(d->reason, sizeof(d->reason), "Java heap %.1f MB of %.1f MB (%.1f%%) over %.0f%%: dump at once",
			 p->used / MB, p->max / MB, ratio * 100, c->huge_ratio * 100);
	} else if (c->variant == HEAP_RULE_KOOM2 && c->huge_delta > 0 && r->last_used >= 0 &&
		   p->used - r->last_used > c->huge_delta) {
		holds = 1;
		d->rule = ooms_heap_rules[HEAP_R_FAST_DELTA];
		snprintf(d->reason, sizeof(d->reason),
			 "Java heap rose %.1f MB since the last poll (to %.1f MB of %.1f MB), more than %.0f MB: dump at once",
			 (p->used - r->last_used) / MB, p->used / MB, p->max / MB, c->huge_delta / MB);
	}
	r->last_ratio = ratio;
	r->last_used = p->used;

	return limited(r, holds, p->t, p->busy, d);
}

/* The rate limits over a rule that holds (or not). */
static enum ooms_heap_verdict limited(struct ooms_heap_rule *r, int holds, double t, int busy,
				      struct ooms_heap_decision *d)
{
	const struct ooms_heap_rule_config *c = &r->cfg;

	if (!holds) {
		r->suppressed = 0;
		return d->verdict = HEAP_QUIET;
	}
	if (busy || r->dumps >= c->max_dumps || (r->dumps > 0 && t - r->last_dump_t < c->cooldown_s)) {
		size_t n = strlen(d->reason);

		if (r->suppressed)
			return d->verdict = HEAP_QUIET;
		r->suppressed = 1;
		if (busy)
			snprintf(d->reason + n, sizeof(d->reason) - n, "; no dump: the last one is still being written");
		else if (r->dumps >= c->max_dumps)
			snprintf(d->reason + n, sizeof(d->reason) - n, "; no dump: %d of --max-dumps %d taken", r->dumps,
				 c->max_dumps);
		else
			snprintf(d->reason + n, sizeof(d->reason) - n, "; no dump: %.0f s since the last, --dump-cooldown %.0f",
				 t - r->last_dump_t, c->cooldown_s);
		return d->verdict = HEAP_SUPPRESSED;
	}
	r->dumps++;
	r->last_dump_t = t;
	r->count = 0;
	r->suppressed = 0;
	return d->verdict = HEAP_DUMP;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double ooms_heap_trend_slope(const struct ooms_heap_rule *r)
{
	double s[OOMS_TREND_POINTS * OOMS_TREND_POINTS / 2];
	int n = 0;

	if (r->ngc < 4)
		return NAN;
	for (int i = 0; i < r->ngc; i++)
		for (int k = i + 1; k < r->ngc; k++)
			if (r->gc_t[k] != r->gc_t[i])
				s[n++] = (r->gc_live[k] - r->gc_live[i]) / (r->gc_t[k] - r->gc_t[i]);
	if (n < 3)
		return NAN;
	qsort(s, (size_t)n, sizeof(s[0]), cmp_dbl);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

enum ooms_heap_verdict ooms_heap_rule_gc(struct ooms_heap_rule *r, double t, int64_t live, int64_t max,
					 double horizon_s, int busy, struct ooms_heap_decision *d)
{
	double slope, tte, horizon = horizon_s > 0 ? horizon_s : r->cfg.horizon_s;
	int holds;

	memset(d, 0, sizeof(*d));
	if (!r->cfg.trend || live < 0 || max <= 0)
		return d->verdict = HEAP_QUIET;
	r->gc_t[r->gc_next] = t;
	r->gc_live[r->gc_next] = (double)live;
	r->gc_next = (r->gc_next + 1) % OOMS_TREND_POINTS;
	if (r->ngc < OOMS_TREND_POINTS)
		r->ngc++;
	slope = ooms_heap_trend_slope(r);
	d->ratio = (double)live / (double)max;
	d->threshold = 0.5;
	if (!(slope > 0)) /* flat, falling, or too few GCs yet */
		return d->verdict = HEAP_QUIET;
	tte = ((double)max - (double)live) / slope;
	holds = tte < horizon && d->ratio >= 0.5;
	d->rule = ooms_heap_rules[HEAP_R_TREND];
	snprintf(d->reason, sizeof(d->reason),
		 "Java heap live set %.1f MB of %.1f MB after GC, rising %.1f MB/s over the last %d GCs: exhausted in "
		 "%.1f s, under the %.0f s horizon",
		 live / MB, max / MB, slope / MB, r->ngc, tte, horizon);
	return limited(r, holds, t, busy, d);
}

int ooms_heap_rule_parse(const char *name, enum ooms_heap_variant *variant, int *trend)
{
	char base[32];
	const char *plus = strchr(name, '+');
	int v;

	if (!strcmp(name, "trend")) {
		*variant = HEAP_RULE_KOOM2;
		*trend = 2;
		return 0;
	}
	if (plus && strcmp(plus, "+trend"))
		return -1;
	snprintf(base, sizeof(base), "%.*s", plus ? (int)(plus - name) : (int)strlen(name), name);
	if ((v = ooms_heap_variant_parse(base)) < 0)
		return -1;
	*variant = (enum ooms_heap_variant)v;
	*trend = plus ? 1 : 0;
	return 0;
}

const char *ooms_heap_rule_name(const struct ooms_heap_rule_config *cfg)
{
	static char buf[32];

	if (cfg->trend == 2)
		return "trend";
	snprintf(buf, sizeof(buf), "%s%s", ooms_heap_variant_name(cfg->variant), cfg->trend ? "+trend" : "");
	return buf;
}

static const char *const variant_names[] = {[HEAP_RULE_KOOM2] = "koom2", [HEAP_RULE_KOOM1] = "koom1",
					    [HEAP_RULE_PROBE] = "probe"};

int ooms_heap_variant_parse(const char *name)
{
	return names_find(variant_names, NAMES_N(variant_names), 0, name, -1);
}

const char *ooms_heap_variant_name(enum ooms_heap_variant v)
{
	return names_get(variant_names, NAMES_N(variant_names), 0, v, "koom2");
}
