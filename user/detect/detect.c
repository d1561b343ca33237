/* Threshold detectors (detect.h): one small function per rule, run from a
 * table. Pure: the only state is struct ooms_detector; no I/O. */
#include "detect/detect.h"
#include "util/units.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void ooms_detect_defaults(struct ooms_detect_config *cfg)
{
	/* KOOM 2.x counts and VmSize, Probe's fd ratio (docs/rules.md): resource.c's rows */
	memset(cfg, 0, sizeof(*cfg));
	for (int r = 0; r < RES_MAX; r++)
		cfg->res[r] = ooms_resources[r].defaults;
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

/* A memory limit named for what it is, by the file it came from. */
static const char *limit_named(const char *src)
{
	static const struct {
		const char *src, *words;
	} names[] = {
		{"memory.max", "the memory cgroup's limit (memory.max)"},
		{"memory.limit_in_bytes", "the memory cgroup's limit (memory.limit_in_bytes)"},
		{"memory.high", "the memory cgroup's high mark (memory.high)"},
		{"MemAvailable", "the system's available memory (MemAvailable)"},
	};

	for (size_t i = 0; src && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(src, names[i].src))
			return names[i].words;
	return NULL;
}

/* The limit's words in a reason: "RLIMIT_NOFILE 1024", "the thread limit
 * 4096 (threads-max)", "the memory cgroup's limit (memory.max) of 300.0 MB". */
static void limit_words(const struct ooms_resource *res, const struct ooms_res_fig *f, char *buf, size_t len)
{
	char b[32];

	if (res->kb) {
		const char *named = limit_named(f->limit_src);

		if (named)
			snprintf(buf, len, "%s of %s", named, units_bytes((double)f->limit * 1024, b, sizeof(b)));
		else
			snprintf(buf, len, "%s of %s", f->limit_src ? f->limit_src : res->limit_name,
				 units_bytes((double)f->limit * 1024, b, sizeof(b)));
		return;
	}
	snprintf(buf, len, "%s %lld%s%s%s", res->limit_name, (long long)f->limit, f->limit_src ? " (" : "",
		 f->limit_src ? f->limit_src : "", f->limit_src ? ")" : "");
}

/* A figure in a reason: "533 open fds", "75.7 MB of memory (...)". */
static const char *figure_words(const struct ooms_resource *res, int64_t v, char *buf, size_t len)
{
	char b[32];

	if (res->kb)
		snprintf(buf, len, "%s %s", units_bytes((double)v * 1024, b, sizeof(b)), res->what);
	else
		snprintf(buf, len, "%lld %s", (long long)v, res->what);
	return buf;
}

/* KOOM's count rules: a rising count (threads, fds), or VmSize over its
 * limit once, on 32-bit targets unless asked for on 64-bit ones (a 64-bit
 * address space does not run out near 4 GB). */
static enum verdict rule_count(struct ooms_detector *d, int r, const struct ooms_sample *s, struct ooms_crossing *x,
			       int64_t *hold_at)
{
	const struct ooms_resource *res = &ooms_resources[r];
	const struct ooms_res_rules *cfg = &d->cfg.res[r];
	int64_t v = s->res[r].value;

	(void)hold_at;
	if (cfg->count_limit <= 0)
		return SKIP;
	if (!res->absolute)
		return rising(&d->st[OOMS_RULE(r, RK_COUNT)], v, cfg->count_limit, cfg->count_gap, cfg->count_polls,
			      res->what, x);
	if (v < 0 || (res->count_32bit_only && !s->is_32bit && !d->cfg.vmsize_limit_64bit))
		return SKIP;
	x->value = v;
	x->limit = cfg->count_limit;
	if (res->count_32bit_only ? x->value <= x->limit : x->value < x->limit)
		return NOT;
	{
		char fig[128], lim[32];

		figure_words(res, v, fig, sizeof(fig));
		if (res->kb)
			units_bytes((double)x->limit * 1024, lim, sizeof(lim));
		else
			snprintf(lim, sizeof(lim), "%lld", (long long)x->limit);
		if (res->count_32bit_only)
			snprintf(x->reason, sizeof(x->reason), "%s > %s (%s target)", fig, lim, s->is_32bit ? "32-bit" : "64-bit");
		else
			snprintf(x->reason, sizeof(x->reason), "%s >= %s", fig, lim);
	}
	return HOLDS;
}

/* Probe's rule: the figure at a ratio of its limit. */
static enum verdict rule_ratio(struct ooms_detector *d, int r, const struct ooms_sample *s, struct ooms_crossing *x,
			       int64_t *hold_at)
{
	const struct ooms_res_fig *f = &s->res[r];
	double ratio = d->cfg.res[r].ratio;
	char lim[128];

	(void)hold_at;
	/* !(r > 0) also turns a NaN ratio off */
	if (!(ratio > 0) || f->value < 0 || f->limit <= 0)
		return SKIP;
	x->value = f->value;
	x->limit = ratio_threshold(ratio, f->limit);
	if (x->value < x->limit)
		return NOT;
	limit_words(&ooms_resources[r], f, lim, sizeof(lim));
	{
		char fig[128];

		snprintf(x->reason, sizeof(x->reason), "%s >= %g%% of %s",
			 figure_words(&ooms_resources[r], f->value, fig, sizeof(fig)), ratio * 100, lim);
	}
	return HOLDS;
}

/* The trend: see ooms_detect_feed. Its figures are kept here (it runs on
 * samples only, not on events). */
static enum verdict rule_trend(struct ooms_detector *d, int r, const struct ooms_sample *s, struct ooms_crossing *x,
			       int64_t *hold_at)
{
	const struct ooms_res_fig *f = &s->res[r];
	const struct ooms_res_rules *cfg = &d->cfg.res[r];
	struct ooms_res_history *h = &d->hist[r];
	double slope, first, second, left;
	int n, half, from = ooms_resources[r].trend_from_pct ? ooms_resources[r].trend_from_pct : 50;
	char lim[128];

	if (f->value < 0)
		return SKIP;
	if (h->n && s->t <= h->t[h->n - 1])
		return SKIP; /* no time passed: no slope */
	if (h->n == OOMS_TREND_SAMPLES) {
		memmove(h->t, h->t + 1, (OOMS_TREND_SAMPLES - 1) * sizeof(h->t[0]));
		memmove(h->v, h->v + 1, (OOMS_TREND_SAMPLES - 1) * sizeof(h->v[0]));
		h->n--;
	}
	h->t[h->n] = s->t;
	h->v[h->n++] = f->value;
	if (!(cfg->trend_s > 0) || f->limit <= 0)
		return SKIP;
	x->value = f->value;
	x->limit = f->limit;
	*hold_at = (int64_t)((double)f->limit * from / 100);
	n = h->n;
	if (n < 4 || (double)f->value * 100 < (double)f->limit * from || f->value >= f->limit)
		return NOT;
	if (cfg->ratio > 0 && f->value >= ratio_threshold(cfg->ratio, f->limit))
		return NOT; /* the ratio rule's: the trend warns before it */
	/* rising across the window, not a step then flat: both halves rise */
	half = n / 2;
	first = (double)(h->v[half] - h->v[0]) / (h->t[half] - h->t[0]);
	second = (double)(h->v[n - 1] - h->v[half]) / (h->t[n - 1] - h->t[half]);
	slope = (double)(h->v[n - 1] - h->v[0]) / (h->t[n - 1] - h->t[0]);
	if (!(first > 0) || !(second > 0) || !(slope > 0))
		return NOT;
	left = (double)(f->limit - f->value) / slope;
	if (left >= cfg->trend_s)
		return NOT;
	limit_words(&ooms_resources[r], f, lim, sizeof(lim));
	{
		char fig[128], rate[40];

		if (ooms_resources[r].kb)
			units_rate(slope * 1024, rate, sizeof(rate));
		else
			snprintf(rate, sizeof(rate), "%.1f a second", slope);
		snprintf(x->reason, sizeof(x->reason), "%s, rising %s: %s exhausted in %.0f s (under %.0f s)",
			 figure_words(&ooms_resources[r], f->value, fig, sizeof(fig)), rate, lim, left, cfg->trend_s);
	}
	return HOLDS;
}

typedef enum verdict (*rule_fn)(struct ooms_detector *, int, const struct ooms_sample *, struct ooms_crossing *,
				int64_t *);

static const rule_fn kinds[RK_MAX] = {[RK_COUNT] = rule_count, [RK_RATIO] = rule_ratio, [RK_TREND] = rule_trend};

/* Whether a rule looks at one figure against a limit, with no history, so
 * that it may also be checked on an event between samples. */
static int rule_instant(int rule)
{
	int kind = rule % RK_MAX;

	return kind == RK_RATIO || (kind == RK_COUNT && ooms_resources[rule / RK_MAX].absolute);
}

/* The further step after which a rule that holds fires again: the count
 * rule's own limit (VmSize's: a tenth of it), else a tenth of the limit. */
static int64_t step_of(const struct ooms_detector *d, int rule, const struct ooms_sample *s)
{
	int r = rule / RK_MAX;
	int64_t step;

	if (rule % RK_MAX == RK_COUNT)
		step = ooms_resources[r].count_32bit_only ? d->cfg.res[r].count_limit / 10 : d->cfg.res[r].count_limit;
	else
		step = s->res[r].limit / 10;
	return step > 0 ? step : 1;
}

const char *ooms_rule_name(enum ooms_rule r)
{
	return (unsigned)r < RULE_MAX ? ooms_resources[r / RK_MAX].rules[r % RK_MAX] : "?";
}

int ooms_rule_find(const char *name)
{
	enum ooms_rule_kind k;
	int r = ooms_resource_rule(name, &k);

	return r < 0 ? -1 : OOMS_RULE(r, (int)k);
}

void ooms_rule_names(char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int r = 0; r < RULE_MAX && used < len; r++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", r ? " " : "", ooms_rule_name((enum ooms_rule)r));
}

int ooms_detect_set(struct ooms_detect_config *cfg, const char *name_eq_value)
{
	const char *eq = strchr(name_eq_value, '=');
	char name[64], *end;
	size_t len, sl;
	int field = 0, rule;
	double v;

	if (!eq || (len = (size_t)(eq - name_eq_value)) == 0 || len >= sizeof(name))
		return -1;
	memcpy(name, name_eq_value, len);
	name[len] = '\0';
	v = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !(v >= 0) || v > 1e15)
		return -1;
	/* NAME_gap, NAME_polls: the count rule's other numbers */
	if ((sl = strlen("_gap")) < len && !strcmp(name + len - sl, "_gap"))
		field = 1, name[len - sl] = '\0';
	else if ((sl = strlen("_polls")) < len && !strcmp(name + len - sl, "_polls"))
		field = 2, name[len - sl] = '\0';
	if ((rule = ooms_rule_find(name)) < 0 || (field && rule % RK_MAX != RK_COUNT))
		return -1;
	struct ooms_res_rules *rr = &cfg->res[rule / RK_MAX];

	switch (field ? 2 + field : rule % RK_MAX) {
	case RK_COUNT: rr->count_limit = (int64_t)v; break;
	case RK_RATIO:
		if (v > 1)
			return -1;
		rr->ratio = v;
		break;
	case RK_TREND: rr->trend_s = v; break;
	case 3: rr->count_gap = (int64_t)v; break;
	default:
		if (v > 1000000)
			return -1;
		rr->count_polls = (int)v;
		break;
	}
	return 0;
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

		if (instant_only && !rule_instant(r))
			continue;
		memset(&x, 0, sizeof(x));
		x.rule = (enum ooms_rule)r;
		struct ooms_rule_state *st = &d->st[r];
		int step = 0;
		int64_t hold_at = -1;

		v = kinds[r % RK_MAX](d, r / RK_MAX, s, &x, &hold_at); /* always run: the rising rules and the trends keep state */
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
			char was[32];

			if (ooms_resources[r / RK_MAX].kb)
				units_bytes((double)st->fired_value * 1024, was, sizeof(was));
			else
				snprintf(was, sizeof(was), "%lld", (long long)st->fired_value);
			snprintf(x.reason + len, sizeof(x.reason) - len, " (up from %s at the last crossing)", was);
		}
		st->armed = 0;
		st->below_since = -1;
		st->fired_value = x.value;
		if (hold_at < 0)
			hold_at = x.limit;
		st->rearm_below = hold_at - hold_at / 10;
		/* a trend is one warning: the ratio rule marks the steps after it */
		st->refire_at = r % RK_MAX == RK_TREND ? INT64_MAX : x.value + step_of(d, r, s);
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
