/* The Java heap rule against scripted poll sequences. */
#include <string.h>
#include "detect/heap_rule.h"
#include "tap.h"

#define MB (1024LL * 1024)

static struct ooms_heap_decision last_d;

/* Feeds one poll per ratio (in permille of max, with max bytes and a poll
 * every step seconds) and returns one character per poll: 'D' dump, 'S'
 * suppressed, '.' quiet. */
static const char *script(struct ooms_heap_rule *r, int64_t max, double step, const int *permille, size_t n)
{
	static char pat[64];
	static double t;
	size_t i;

	for (i = 0; i < n && i < sizeof(pat) - 1; i++) {
		struct ooms_heap_poll p = {t, max / 1000 * permille[i], max, 0};
		struct ooms_heap_decision d;
		enum ooms_heap_verdict v = ooms_heap_rule_feed(r, &p, &d);

		pat[i] = v == HEAP_DUMP ? 'D' : v == HEAP_SUPPRESSED ? 'S' : '.';
		if (v != HEAP_QUIET)
			last_d = d;
		t += step;
	}
	pat[i] = '\0';
	return pat;
}

#define SCRIPT(r, max, step, ...)                                                        \
	script(r, max, step, (const int[]){ __VA_ARGS__ }, sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))

static struct ooms_heap_rule rule(enum ooms_heap_variant v)
{
	struct ooms_heap_rule_config c;
	struct ooms_heap_rule r;

	ooms_heap_rule_defaults(&c, v);
	c.cooldown_s = 0;
	c.max_dumps = 100;
	ooms_heap_rule_init(&r, &c);
	return r;
}

static void test_koom2(void)
{
	struct ooms_heap_rule r = rule(HEAP_RULE_KOOM2);
	struct ooms_heap_rule_config c;

	ooms_heap_rule_defaults(&c, HEAP_RULE_KOOM2);
	TAP_OK(c.polls == 3 && c.tolerance == 0.05 && c.huge_ratio == 0.90 && c.huge_delta == 350 * MB &&
		       c.interval_s == 15,
	       "koom2 defaults: 3 polls, tolerance 0.05, fast huge 0.90 / 350 MB, every 15 s");
	/* thresholds by max heap */
	TAP_OK(ooms_heap_rule_threshold(&c, 502 * MB) == 0.80, "koom2: max 502 MB -> 80%%");
	TAP_OK(ooms_heap_rule_threshold(&c, 501 * MB) == 0.85, "koom2: max 501 MB -> 85%%");
	TAP_OK(ooms_heap_rule_threshold(&c, 246 * MB) == 0.85, "koom2: max 246 MB -> 85%%");
	TAP_OK(ooms_heap_rule_threshold(&c, 245 * MB) == 0.90, "koom2: max 245 MB -> 90%%");

	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 700, 810, 820, 830), "...D", "koom2: 3 polls over 80%% dump");
	TAP_EQ_STR(last_d.rule, "heap_ratio", "koom2: the rule is heap_ratio");
	TAP_OK(strstr(last_d.reason, "3 polls in a row") && strstr(last_d.reason, "koom2"),
	       "koom2: the reason says why (%s)", last_d.reason);
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 810, 850, 810), "..D", "koom2: a dip of 0.04 still counts");
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 810, 870, 810, 820, 830), ".....",
		   "koom2: a dip of 0.06 ends the run (and the next run needs 3 polls again)");
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 810, 820, 790, 820, 830, 840), ".....D",
		   "koom2: a poll under the ratio ends the run");
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 810, 820, 830, 840, 850, 860), "..D..D",
		   "koom2: after a dump the count starts again");
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(SCRIPT(&r, 200 * MB, 15, 880, 901), ".D", "koom2 fast huge: over 90%% dumps at once");
	TAP_EQ_STR(last_d.rule, "heap_fast_ratio", "koom2 fast huge: rule heap_fast_ratio");
	r = rule(HEAP_RULE_KOOM2);
	{
		struct ooms_heap_poll a = {0, 100 * MB, 4096 * MB, 0}, b = {15, 461 * MB, 4096 * MB, 0},
				      e = {30, 810 * MB, 4096 * MB, 0};
		struct ooms_heap_decision d;

		TAP_OK(ooms_heap_rule_feed(&r, &a, &d) == HEAP_QUIET, "koom2 fast delta: first poll quiet");
		TAP_OK(ooms_heap_rule_feed(&r, &b, &d) == HEAP_DUMP && !strcmp(d.rule, "heap_fast_delta"),
		       "koom2 fast delta: up 361 MB since the last poll dumps at once (%s)", d.reason);
		TAP_OK(ooms_heap_rule_feed(&r, &e, &d) == HEAP_QUIET, "koom2 fast delta: up 349 MB does not");
	}
}

static void test_koom1(void)
{
	struct ooms_heap_rule r = rule(HEAP_RULE_KOOM1);
	struct ooms_heap_rule_config c;

	ooms_heap_rule_defaults(&c, HEAP_RULE_KOOM1);
	TAP_OK(c.polls == 3 && c.interval_s == 5 && c.huge_ratio == 0, "koom1 defaults: 3 polls every 5 s, no fast rule");
	TAP_OK(ooms_heap_rule_threshold(&c, 510 * MB) == 0.80 && ooms_heap_rule_threshold(&c, 509 * MB) == 0.85 &&
		       ooms_heap_rule_threshold(&c, 250 * MB) == 0.85 && ooms_heap_rule_threshold(&c, 249 * MB) == 0.90 &&
		       ooms_heap_rule_threshold(&c, 128 * MB) == 0.90 && ooms_heap_rule_threshold(&c, 127 * MB) == 0.80,
	       "koom1 thresholds: 510/250/128 MB -> 80/85/90%%, smaller 80%%");
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 5, 810, 820, 820), "..D", "koom1: 3 polls over, used not falling, dump");
	r = rule(HEAP_RULE_KOOM1);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 5, 810, 830, 820, 830, 840, 850), ".....D",
		   "koom1: any fall of used ends the run (no tolerance)");
	r = rule(HEAP_RULE_KOOM1);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 5, 950, 960), "..", "koom1: no fast rule");
}

static void test_probe(void)
{
	struct ooms_heap_rule r = rule(HEAP_RULE_PROBE);

	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 1, 890, 900), ".D", "probe: one poll at 90%% dumps");
	r = rule(HEAP_RULE_PROBE);
	r.cfg.ratio = 0.5;
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 1, 490, 500), ".D", "probe: --heap-ratio sets the ratio");
}

static void test_limits(void)
{
	struct ooms_heap_rule_config c;
	struct ooms_heap_rule r;

	ooms_heap_rule_defaults(&c, HEAP_RULE_KOOM2);
	TAP_OK(c.max_dumps == 3 && c.cooldown_s == 300, "rate limit defaults: 3 dumps per run, 300 s apart");
	c.max_dumps = 1;
	c.cooldown_s = 0;
	ooms_heap_rule_init(&r, &c);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 810, 820, 830, 840, 850, 860, 870, 700, 810, 820, 830, 840), "..D..S....S.",
		   "--max-dumps 1: one dump; a later hold is suppressed and said once per hold");
	TAP_OK(strstr(last_d.reason, "--max-dumps 1") != NULL, "the suppression says which limit (%s)", last_d.reason);

	c.max_dumps = 5;
	c.cooldown_s = 60;
	ooms_heap_rule_init(&r, &c);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 810, 820, 830, 840, 850, 860, 870), "..D..SD",
		   "cool-down 60 s: a hold 45 s after a dump is suppressed, at 60 s it dumps");
	TAP_OK(strstr(last_d.reason, "--dump-cooldown") == NULL, "the dump after the cool-down is a plain dump");

	/* a dump still being written: the hold is said, no dump counted */
	c.max_dumps = 5;
	c.cooldown_s = 0;
	ooms_heap_rule_init(&r, &c);
	{
		struct ooms_heap_poll p = {0, 950 * MB, 1000 * MB, 1};
		struct ooms_heap_decision d;

		TAP_OK(ooms_heap_rule_feed(&r, &p, &d) == HEAP_SUPPRESSED && strstr(d.reason, "still being written") &&
			       r.dumps == 0,
		       "busy: a fast-huge hold while a dump is written is suppressed, no dump counted (%s)", d.reason);
		p.t = 15;
		p.busy = 0;
		TAP_OK(ooms_heap_rule_feed(&r, &p, &d) == HEAP_DUMP && r.dumps == 1, "... and the next hold dumps");
	}

	c.max_dumps = 0;
	ooms_heap_rule_init(&r, &c);
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 810, 820, 830, 840), "..S.", "--max-dumps 0: watch only, said once");
}

static void test_unknown(void)
{
	struct ooms_heap_rule r = rule(HEAP_RULE_KOOM2);
	struct ooms_heap_poll p = {0, 900 * MB, 0, 0};
	struct ooms_heap_decision d;

	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 810, 820), "..", "two polls over");
	TAP_OK(ooms_heap_rule_feed(&r, &p, &d) == HEAP_QUIET, "a poll with unknown max is quiet");
	TAP_EQ_STR(SCRIPT(&r, 1000 * MB, 15, 830), "D", "... and leaves the run as it was");
	TAP_EQ_INT(ooms_heap_variant_parse("koom1"), HEAP_RULE_KOOM1, "parse koom1");
	TAP_EQ_INT(ooms_heap_variant_parse("probe"), HEAP_RULE_PROBE, "parse probe");
	TAP_EQ_INT(ooms_heap_variant_parse("koom3"), -1, "an unknown variant is refused");
	TAP_EQ_STR(ooms_heap_variant_name(HEAP_RULE_KOOM2), "koom2", "name of the default");
}

/* One GC point per live figure (MB), step seconds apart: 'D' 'S' '.' */
static const char *gc_script(struct ooms_heap_rule *r, int64_t max, double t0, double step, const int *mb, size_t n,
			     double horizon)
{
	static char pat[64];
	size_t i;

	for (i = 0; i < n && i < sizeof(pat) - 1; i++) {
		struct ooms_heap_decision d;
		enum ooms_heap_verdict v = ooms_heap_rule_gc(r, t0 + i * step, mb[i] * MB, max, horizon, 0, &d);

		pat[i] = v == HEAP_DUMP ? 'D' : v == HEAP_SUPPRESSED ? 'S' : '.';
		if (v != HEAP_QUIET)
			last_d = d;
	}
	pat[i] = '\0';
	return pat;
}

#define GC_SCRIPT(r, max, step, horizon, ...)                                                              \
	gc_script(r, max, 0, step, (const int[]){ __VA_ARGS__ }, sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int), \
		  horizon)

static void test_trend(void)
{
	struct ooms_heap_rule r = rule(HEAP_RULE_KOOM2);
	enum ooms_heap_variant v;
	int trend;

	TAP_EQ_INT(r.cfg.trend, 1, "the trend is on by default, beside koom2");
	/* 256 MB heap, +10 MB per GC every 0.5 s = 20 MB/s: from 140 MB the
	 * heap is out in under 6 s, inside the 10 s horizon */
	TAP_EQ_STR(GC_SCRIPT(&r, 256 * MB, 0.5, 0, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130), ".........D",
		   "a steady 20 MB/s climb dumps once the live set is half the heap and exhaustion is < 10 s away");
	TAP_OK(strstr(last_d.reason, "rising 20.0 MB/s") && strstr(last_d.rule, "heap_trend"), "said: %s", last_d.reason);
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(GC_SCRIPT(&r, 256 * MB, 0.5, 0, 200, 150, 210, 140, 205, 145, 200, 150, 210, 140), "..........",
		   "a live set that swings around a flat mean never dumps");
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(GC_SCRIPT(&r, 256 * MB, 10, 0, 130, 131, 132, 133, 134, 135, 136, 137), "........",
		   "a slow climb (0.1 MB/s: exhaustion in 20 minutes) does not");
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(GC_SCRIPT(&r, 256 * MB, 0.5, 0, 150, 150, 150, 150, 150, 150, 400, 150), "........",
		   "one odd GC on a flat live set does not swing the median slope (Theil-Sen)");
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(GC_SCRIPT(&r, 256 * MB, 5, 0, 150, 160, 170, 180, 190), ".....",
		   "2 MB/s from 190 MB: 33 s left, outside a 10 s horizon");
	r = rule(HEAP_RULE_KOOM2);
	TAP_EQ_STR(GC_SCRIPT(&r, 256 * MB, 5, 40, 150, 160, 170, 180, 190), "...DD",
		   "inside a 40 s horizon (3x a 13 s dump): from the fourth GC on");
	r = rule(HEAP_RULE_KOOM2);
	r.cfg.cooldown_s = 300;
	TAP_EQ_STR(GC_SCRIPT(&r, 256 * MB, 0.5, 0, 130, 140, 150, 160, 170, 180, 170, 170, 170, 170, 170, 170), "...DS.......",
		   "rate-limited as the polls are (one per cooldown), reported once while it holds");
	r = rule(HEAP_RULE_KOOM2);
	r.cfg.trend = 0;
	TAP_EQ_STR(GC_SCRIPT(&r, 256 * MB, 0.5, 0, 140, 150, 160, 170, 180), ".....", "koom2 alone: the trend is off");

	TAP_EQ_INT(ooms_heap_rule_parse("koom2+trend", &v, &trend), 0, "koom2+trend parses");
	TAP_OK(v == HEAP_RULE_KOOM2 && trend == 1, "as koom2 and the trend");
	TAP_OK(ooms_heap_rule_parse("trend", &v, &trend) == 0 && trend == 2, "trend alone");
	TAP_OK(ooms_heap_rule_parse("probe", &v, &trend) == 0 && v == HEAP_RULE_PROBE && trend == 0, "probe alone");
	TAP_OK(ooms_heap_rule_parse("probe+koom1", &v, &trend) < 0 && ooms_heap_rule_parse("tren", &v, &trend) < 0,
	       "unknown combinations refused");
	r = rule(HEAP_RULE_KOOM2);
	r.cfg.trend = 2;
	TAP_EQ_STR(SCRIPT(&r, 256 * MB, 15, 950, 960, 970, 980), "....", "trend alone: the polls never dump");
	TAP_EQ_STR(ooms_heap_rule_name(&r.cfg), "trend", "named trend");
}

int main(void)
{
	test_trend();
	test_koom2();
	test_koom1();
	test_probe();
	test_limits();
	test_unknown();
	return tap_done();
}
