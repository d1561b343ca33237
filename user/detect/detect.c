#include "detect/detect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ooms_detect_defaults(struct ooms_detect_config *cfg)
{
	/* KOOM 2.x and Probe numbers, thresholds.md */
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
}

void ooms_detect_init(struct ooms_detector *d, const struct ooms_detect_config *cfg)
{
	memset(d, 0, sizeof(*d));
	d->cfg = *cfg;
	for (int r = 0; r < RULE_MAX; r++) {
		d->st[r].last = -1;
		d->st[r].armed = 1;
	}
}

const char *ooms_rule_name(enum ooms_rule r)
{
	static const char *const names[RULE_MAX] = {
		[RULE_THREAD_COUNT] = "thread_count", [RULE_FD_COUNT] = "fd_count",
		[RULE_FD_RATIO] = "fd_ratio",         [RULE_THREAD_RATIO] = "thread_ratio",
		[RULE_VMSIZE] = "vmsize",
	};

	return r >= 0 && r < RULE_MAX ? names[r] : "?";
}

/* What one rule says of one sample. */
enum verdict { SKIP, HOLDS, NOT };

/* KOOM 2.x "rising" rule: over limit and not falling by more than gap counts
 * a poll; `polls` counted polls in a row hold. */
static enum verdict rising(struct ooms_rule_state *st, int64_t v, int64_t limit, int64_t gap,
			   int polls, const char *what, struct ooms_crossing *x)
{
	int counts;

	if (v < 0)
		return SKIP;
	counts = v > limit && (st->last < 0 || v >= st->last - gap);
	st->last = v;
	st->count = counts ? st->count + 1 : 0;
	x->value = v;
	x->limit = limit;
	snprintf(x->reason, sizeof(x->reason),
		 "%lld %s > %lld and not falling by more than %lld, %d polls in a row", (long long)v, what,
		 (long long)limit, (long long)gap, st->count);
	return st->count >= polls ? HOLDS : NOT;
}

static int64_t ratio_of(double ratio, int64_t limit)
{
	return (int64_t)ceil(ratio * (double)limit - 1e-9);
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
	if (d->cfg.fd_ratio <= 0 || s->fds < 0 || s->fd_limit <= 0)
		return SKIP;
	x->value = s->fds;
	x->limit = ratio_of(d->cfg.fd_ratio, s->fd_limit);
	snprintf(x->reason, sizeof(x->reason), "%lld open fds >= %g%% of RLIMIT_NOFILE %lld",
		 (long long)s->fds, d->cfg.fd_ratio * 100, (long long)s->fd_limit);
	return s->fds >= x->limit ? HOLDS : NOT;
}

static enum verdict rule_thread_ratio(struct ooms_detector *d, const struct ooms_sample *s,
				      struct ooms_crossing *x)
{
	if (d->cfg.thread_ratio <= 0 || s->threads < 0 || s->thread_limit <= 0)
		return SKIP;
	x->value = s->threads;
	x->limit = ratio_of(d->cfg.thread_ratio, s->thread_limit);
	snprintf(x->reason, sizeof(x->reason), "thread count %lld >= %g%% of the thread limit %lld (%s)",
		 (long long)s->threads, d->cfg.thread_ratio * 100, (long long)s->thread_limit,
		 s->thread_limit_src ? s->thread_limit_src : "limit");
	return s->threads >= x->limit ? HOLDS : NOT;
}

static enum verdict rule_vmsize(struct ooms_detector *d, const struct ooms_sample *s,
				struct ooms_crossing *x)
{
	if (d->cfg.vmsize_limit_kb <= 0 || s->vmsize_kb < 0 || (!s->is_32bit && !d->cfg.vmsize_limit_64bit))
		return SKIP;
	x->value = s->vmsize_kb;
	x->limit = d->cfg.vmsize_limit_kb;
	snprintf(x->reason, sizeof(x->reason), "VmSize %lld kB > %lld kB%s", (long long)s->vmsize_kb,
		 (long long)x->limit, s->is_32bit ? " (32-bit process)" : "");
	return s->vmsize_kb > x->limit ? HOLDS : NOT;
}

typedef enum verdict (*rule_fn)(struct ooms_detector *, const struct ooms_sample *, struct ooms_crossing *);

static const rule_fn rules[RULE_MAX] = {
	[RULE_THREAD_COUNT] = rule_thread_count, [RULE_FD_COUNT] = rule_fd_count,
	[RULE_FD_RATIO] = rule_fd_ratio,         [RULE_THREAD_RATIO] = rule_thread_ratio,
	[RULE_VMSIZE] = rule_vmsize,
};

size_t ooms_detect_feed(struct ooms_detector *d, const struct ooms_sample *s,
			struct ooms_crossing *out, size_t max)
{
	size_t n = 0;

	for (int r = 0; r < RULE_MAX; r++) {
		struct ooms_crossing x;
		enum verdict v;

		memset(&x, 0, sizeof(x));
		x.rule = r;
		v = rules[r](d, s, &x);
		if (v == NOT)
			d->st[r].armed = 1; /* stopped holding: may fire again */
		if (v != HOLDS || !d->st[r].armed)
			continue;
		d->st[r].armed = 0;
		if (n < max)
			out[n++] = x;
	}
	return n;
}
