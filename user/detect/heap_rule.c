/* The Java heap rule (heap_rule.h). Pure: no I/O, the only state is struct
 * ooms_heap_rule. */
#include "detect/heap_rule.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define MB (1024.0 * 1024.0)

void ooms_heap_rule_defaults(struct ooms_heap_rule_config *cfg, enum ooms_heap_variant v)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->variant = v;
	cfg->polls = 3;
	cfg->max_dumps = 3;
	cfg->cooldown_s = 300;
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

	if (poll_counts(r, p, ratio, thr)) {
		if (r->count < INT_MAX)
			r->count++;
	} else {
		r->count = 0;
	}
	if (r->count >= polls) {
		holds = 1;
		d->rule = "heap_ratio";
		snprintf(d->reason, sizeof(d->reason),
			 "Java heap %.1f MB of %.1f MB (%.1f%%) over %.0f%% for %d polls in a row (%s)",
			 p->used / MB, p->max / MB, ratio * 100, thr * 100, r->count, ooms_heap_variant_name(c->variant));
	} else if (c->variant == HEAP_RULE_KOOM2 && c->huge_ratio > 0 && ratio > c->huge_ratio) {
		holds = 1;
		d->rule = "heap_fast_ratio";
		d->threshold = c->huge_ratio;
		snprintf(d->reason, sizeof(d->reason), "Java heap %.1f MB of %.1f MB (%.1f%%) over %.0f%%: dump at once",
			 p->used / MB, p->max / MB, ratio * 100, c->huge_ratio * 100);
	} else if (c->variant == HEAP_RULE_KOOM2 && c->huge_delta > 0 && r->last_used >= 0 &&
		   p->used - r->last_used > c->huge_delta) {
		holds = 1;
		d->rule = "heap_fast_delta";
		snprintf(d->reason, sizeof(d->reason),
			 "Java heap rose %.1f MB since the last poll (to %.1f MB of %.1f MB), more than %.0f MB: dump at once",
			 (p->used - r->last_used) / MB, p->used / MB, p->max / MB, c->huge_delta / MB);
	}
	r->last_ratio = ratio;
	r->last_used = p->used;

	if (!holds) {
		r->suppressed = 0;
		return d->verdict = HEAP_QUIET;
	}
	if (p->busy || r->dumps >= c->max_dumps || (r->dumps > 0 && p->t - r->last_dump_t < c->cooldown_s)) {
		size_t n = strlen(d->reason);

		if (r->suppressed)
			return d->verdict = HEAP_QUIET;
		r->suppressed = 1;
		if (p->busy)
			snprintf(d->reason + n, sizeof(d->reason) - n, "; no dump: the last one is still being written");
		else if (r->dumps >= c->max_dumps)
			snprintf(d->reason + n, sizeof(d->reason) - n, "; no dump: %d of --max-dumps %d taken", r->dumps,
				 c->max_dumps);
		else
			snprintf(d->reason + n, sizeof(d->reason) - n, "; no dump: %.0f s since the last, --dump-cooldown %.0f",
				 p->t - r->last_dump_t, c->cooldown_s);
		return d->verdict = HEAP_SUPPRESSED;
	}
	r->dumps++;
	r->last_dump_t = p->t;
	r->count = 0;
	r->suppressed = 0;
	return d->verdict = HEAP_DUMP;
}

int ooms_heap_variant_parse(const char *name)
{
	if (!strcmp(name, "koom2"))
		return HEAP_RULE_KOOM2;
	if (!strcmp(name, "koom1"))
		return HEAP_RULE_KOOM1;
	if (!strcmp(name, "probe"))
		return HEAP_RULE_PROBE;
	return -1;
}

const char *ooms_heap_variant_name(enum ooms_heap_variant v)
{
	return v == HEAP_RULE_KOOM1 ? "koom1" : v == HEAP_RULE_PROBE ? "probe" : "koom2";
}
