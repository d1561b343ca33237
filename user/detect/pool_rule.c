/* A JVM's other ways to run out: see pool_rule.h. */
#include "detect/pool_rule.h"

#include <stdio.h>
#include <string.h>

#define MB(x) ((double)(x) / 1048576.0)

void ooms_pool_rule_init(struct ooms_pool_rule *r, const char *name, const char *title)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->title = title;
	r->ratio = 0.90;
	r->horizon_s = 10;
}

int ooms_pool_rule_feed(struct ooms_pool_rule *r, double t, int64_t used, int64_t max, struct ooms_pool_decision *d)
{
	double slope = 0, left;
	int holds = 0;

	memset(d, 0, sizeof(*d));
	if (max <= 0 || used < 0)
		return 0;
	if (r->n == OOMS_POOL_POINTS) {
		memmove(r->t, r->t + 1, (OOMS_POOL_POINTS - 1) * sizeof(r->t[0]));
		memmove(r->used, r->used + 1, (OOMS_POOL_POINTS - 1) * sizeof(r->used[0]));
		r->n--;
	}
	r->t[r->n] = t;
	r->used[r->n++] = used;
	d->value = used;
	d->limit = max;
	if ((double)used >= r->ratio * (double)max) {
		holds = 1;
		snprintf(d->rule, sizeof(d->rule), "%s_ratio", r->name);
		snprintf(d->reason, sizeof(d->reason), "%s %.1f MB of %.1f MB (%.1f%%) over %.0f%%", r->title, MB(used),
			 MB(max), 100.0 * (double)used / (double)max, 100 * r->ratio);
	} else if (r->n >= 2 && 2 * used >= max && r->t[r->n - 1] > r->t[0]) {
		/* the slope over the points held: oldest to newest */
		slope = (double)(used - r->used[0]) / (r->t[r->n - 1] - r->t[0]);
		left = slope > 0 ? (double)(max - used) / slope : -1;
		if (slope > 0 && left < r->horizon_s) {
			holds = 1;
			snprintf(d->rule, sizeof(d->rule), "%s_trend", r->name);
			snprintf(d->reason, sizeof(d->reason),
				 "%s %.1f MB of %.1f MB, rising %.1f MB/s: exhausted in %.1f s (under %.0f s)", r->title,
				 MB(used), MB(max), MB(slope), left, r->horizon_s);
		}
	}
	/* re-armed once well below where it fired: a figure that hovers at the
	 * line, or a rise that pauses after the trend fired, is one crossing */
	if (r->holding && (double)used < (r->ratio - 0.10) * (double)max &&
	    (double)used < (double)r->fired_at - 0.10 * (double)max)
		r->holding = 0;
	if (!holds)
		return 0;
	d->dump = !r->holding;
	if (d->dump)
		r->fired_at = used;
	r->holding = 1;
	return d->dump;
}

void ooms_gc_rule_init(struct ooms_gc_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->window_s = 1;
	r->share = 0.30;
	r->min_used = 0.40;
	r->min_gcs = 50;
	r->min_full = 3;
}

int ooms_gc_rule_feed(struct ooms_gc_rule *r, double t, double pause_ms, int full, int64_t used_after, int64_t max,
		      struct ooms_pool_decision *d)
{
	double paused = 0, from = t - r->window_s;
	int gcs = 0, fulls = 0, holds = 0;

	memset(d, 0, sizeof(*d));
	r->t[r->next] = t;
	r->pause_ms[r->next] = pause_ms;
	r->full[r->next] = full != 0;
	r->next = (r->next + 1) % OOMS_GC_RING;
	if (r->n < OOMS_GC_RING)
		r->n++;
	for (int i = 0; i < r->n; i++) {
		if (r->t[i] <= from)
			continue;
		gcs++;
		fulls += r->full[i];
		paused += r->pause_ms[i];
	}
	d->value = used_after;
	d->limit = max;
	snprintf(d->rule, sizeof(d->rule), "gc_distress");
	if (max > 0 && (double)used_after >= r->min_used * (double)max &&
	    (gcs >= r->min_gcs || paused >= r->share * r->window_s * 1000 || fulls >= r->min_full)) {
		holds = 1;
		snprintf(d->reason, sizeof(d->reason),
			 "GC distress: %d collections (%d full) in the last %.0f s, %.0f%% of it in pauses, and the heap "
			 "still %.1f MB of %.1f MB after the last",
			 gcs, fulls, r->window_s, paused / (r->window_s * 10), MB(used_after), MB(max));
	}
	/* once per run: a collector in distress goes in and out of it with each GC */
	d->dump = holds && !r->fired;
	r->fired |= holds;
	return d->dump;
}
