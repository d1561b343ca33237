/* A JVM's pool and GC distress rules against scripted figures. */
#include <string.h>
#include "detect/pool_rule.h"
#include "tap.h"

#define MB (1024LL * 1024)

/* One poll per used figure (MB), a poll every step seconds from t0: one
 * character per poll, 'D' dump or '.' quiet; the last decision that dumped
 * in *last. */
static const char *polls(struct ooms_pool_rule *r, double t0, double step, int64_t max_mb, const int *used_mb,
			 size_t n, struct ooms_pool_decision *last)
{
	static char pat[64];
	size_t i;

	for (i = 0; i < n && i < sizeof(pat) - 1; i++) {
		struct ooms_pool_decision d;

		pat[i] = ooms_pool_rule_feed(r, t0 + step * (double)i, used_mb[i] * MB, max_mb * MB, &d) ? 'D' : '.';
		if (d.dump)
			*last = d;
	}
	pat[i] = 0;
	return pat;
}

#define POLLS(r, t0, step, max, last, ...)                                                                    \
	polls(r, t0, step, max, (const int[]){__VA_ARGS__}, sizeof((const int[]){__VA_ARGS__}) / sizeof(int), \
	      last)

static void pools(void)
{
	struct ooms_pool_rule r;
	struct ooms_pool_decision d = {0};

	ooms_pool_rule_init(&r, "metaspace", "Metaspace");
	TAP_EQ_STR(POLLS(&r, 0, 1, 48, &d, 10, 10, 10, 10, 44, 44, 45), "....D..",
		   "the ratio: the first poll at 90%% of max dumps, once while it holds");
	TAP_EQ_STR(d.rule, "metaspace_ratio", "... named metaspace_ratio");
	TAP_EQ_INT(d.value, 44 * MB, "... with the figure that crossed");
	TAP_EQ_INT(d.limit, 48 * MB, "... and the limit");
	TAP_OK(strstr(d.reason, "Metaspace") && strstr(d.reason, "of 48.0 MB"), "... and says so: %s", d.reason);

	/* just below, then over again: the same crossing; well below, then over: a new one */
	TAP_EQ_STR(POLLS(&r, 10, 1, 48, &d, 42, 44, 42, 44), "....", "hovering at the line: one crossing");
	TAP_EQ_STR(POLLS(&r, 20, 1, 48, &d, 30, 30, 44), "..D", "fallen well below and risen again: dumps again");

	/* the trend: half full, rising 8 MB/s with 40 MB left: 5 s */
	ooms_pool_rule_init(&r, "direct", "Direct buffer memory");
	TAP_EQ_STR(POLLS(&r, 0, 1, 96, &d, 8, 16, 24, 32, 40, 48, 56), ".....D.",
		   "the trend: rising 8 MB/s, at half of max 6 s from exhaustion: dumps, once");
	TAP_EQ_STR(d.rule, "direct_trend", "... named direct_trend");
	TAP_OK(strstr(d.reason, "exhausted in") != NULL, "... with the time left: %s", d.reason);

	/* the trend fired at 48 of 96; the leaker paused (its dump), then went on
	 * to the ratio line: the same crossing, not a second one */
	TAP_EQ_STR(POLLS(&r, 7, 1, 96, &d, 56, 56, 56, 56, 60, 72, 88, 96), "........",
		   "a pause after the trend, then the ratio: one crossing");
	TAP_EQ_STR(POLLS(&r, 15, 1, 96, &d, 40, 40, 88), "...", "fallen under 10 points below where it fired: not re-armed");
	TAP_EQ_STR(POLLS(&r, 18, 1, 96, &d, 30, 30, 88), "..D", "fallen 10 points under where it fired, then over: again");

	/* the same slope at under half: no dump yet */
	ooms_pool_rule_init(&r, "direct", "Direct buffer memory");
	TAP_EQ_STR(POLLS(&r, 0, 1, 960, &d, 80, 160, 240, 320, 400), ".....",
		   "a rising pool under half of its max: no dump");

	/* slow rise at 60%: 100 s left, over the horizon */
	ooms_pool_rule_init(&r, "class_space", "Compressed class space");
	TAP_EQ_STR(POLLS(&r, 0, 1, 1000, &d, 600, 601, 602, 603, 604), ".....", "a slow rise at 60%%: no dump");

	/* flat at 80%: neither rule */
	ooms_pool_rule_init(&r, "metaspace", "Metaspace");
	TAP_EQ_STR(POLLS(&r, 0, 1, 100, &d, 80, 80, 80, 80, 80, 80), "......", "flat at 80%%: no dump");

	/* no limit */
	ooms_pool_rule_init(&r, "metaspace", "Metaspace");
	TAP_EQ_INT(ooms_pool_rule_feed(&r, 0, 100 * MB, 0, &d), 0, "no max (unlimited): never");
	TAP_EQ_INT(ooms_pool_rule_feed(&r, 1, 100 * MB, -1, &d), 0, "max unknown (-1): never");
}

/* GCs every gap seconds, each pausing pause_ms, n of them; returns how many dumped */
static int gcs(struct ooms_gc_rule *r, double *t, double gap, double pause_ms, int full, int n, int64_t used,
	       int64_t max, struct ooms_pool_decision *last)
{
	int dumps = 0;

	for (int i = 0; i < n; i++, *t += gap) {
		struct ooms_pool_decision d;

		if (ooms_gc_rule_feed(r, *t, pause_ms, full, used, max, &d)) {
			dumps++;
			*last = d;
		}
	}
	return dumps;
}

static void gc_distress(void)
{
	struct ooms_gc_rule r;
	struct ooms_pool_decision d = {0};
	double t = 100;

	ooms_gc_rule_init(&r);
	TAP_EQ_INT(gcs(&r, &t, 0.5, 5, 0, 20, 200 * MB, 256 * MB, &d), 0, "two young GCs a second, short: no distress");
	TAP_EQ_INT(gcs(&r, &t, 0.01, 1, 0, 100, 200 * MB, 256 * MB, &d), 1,
		   "back to back (100 a second) with the heap 78%% full: once");
	TAP_EQ_STR(d.rule, "gc_distress", "... named gc_distress");
	TAP_EQ_INT(gcs(&r, &t, 0.01, 1, 0, 100, 20 * MB, 256 * MB, &d) + gcs(&r, &t, 0.01, 1, 0, 100, 200 * MB, 256 * MB, &d),
		   0, "in and out of distress after: once per run");
	TAP_OK(strstr(d.reason, "GC distress") && strstr(d.reason, "of 256.0 MB"), "... and says why: %s", d.reason);

	ooms_gc_rule_init(&r);
	t = 200;
	TAP_EQ_INT(gcs(&r, &t, 0.01, 1, 0, 100, 20 * MB, 256 * MB, &d), 0,
		   "back to back but the heap 8%% full after each (an allocation storm the GC wins): no dump");

	ooms_gc_rule_init(&r);
	t = 300;
	TAP_EQ_INT(gcs(&r, &t, 0.2, 80, 0, 10, 150 * MB, 256 * MB, &d), 1,
		   "pauses of 80 ms every 200 ms (40%% of the time) at 59%%: once");

	ooms_gc_rule_init(&r);
	t = 400;
	TAP_EQ_INT(gcs(&r, &t, 0.3, 20, 1, 4, 120 * MB, 256 * MB, &d), 1, "3 full GCs within a second at 47%%: once");

	ooms_gc_rule_init(&r);
	t = 500;
	TAP_EQ_INT(gcs(&r, &t, 0.6, 20, 1, 6, 120 * MB, 256 * MB, &d), 0, "a full GC every 0.6 s: never 3 in a second");
	TAP_EQ_INT(gcs(&r, &t, 0.01, 1, 0, 10, 120 * MB, 0, &d), 0, "no heap max known: never");
}

int main(void)
{
	pools();
	gc_distress();
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
