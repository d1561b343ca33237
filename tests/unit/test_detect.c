/* The detectors against scripted sample sequences. */
#include <string.h>
#include "detect/detect.h"
#include "tap.h"

/* A sample where every figure is known and far from every limit. */
static struct ooms_sample quiet(void)
{
	struct ooms_sample s;

	memset(&s, 0, sizeof(s));
	s.res[RES_FDS].value = 10;
	s.res[RES_THREADS].value = 10;
	s.res[RES_FDS].limit = 1 << 20;
	s.res[RES_THREADS].limit = 1 << 20;
	s.res[RES_VMSIZE].value = 1000;
	return s;
}

enum fig { FDS, THREADS, VMSIZE };

/* The last crossing of the scripted rule, for checking its numbers. */
static struct ooms_crossing last_x;

/* Feeds one sample per value (figure f set to it, the rest from tmpl) and
 * returns one character per poll: 'F' when `rule` fired, '.' when it did not. */
static const char *script(struct ooms_detector *d, enum ooms_rule rule, enum fig f,
			  struct ooms_sample tmpl, const int64_t *v, size_t n)
{
	static char pat[64];
	size_t i;

	for (i = 0; i < n && i < sizeof(pat) - 1; i++) {
		struct ooms_crossing x[RULE_MAX];
		struct ooms_sample s = tmpl;
		size_t k;
		static double clock_s;

		s.t = clock_s += 1; /* a poll a second */
		if (f == FDS)
			s.res[RES_FDS].value = v[i];
		else if (f == THREADS)
			s.res[RES_THREADS].value = v[i];
		else
			s.res[RES_VMSIZE].value = v[i];
		k = ooms_detect_feed(d, &s, x, RULE_MAX);
		pat[i] = '.';
		for (size_t j = 0; j < k; j++)
			if (x[j].rule == rule) {
				pat[i] = 'F';
				last_x = x[j];
			}
	}
	pat[i] = '\0';
	return pat;
}

#define SCRIPT(d, rule, f, tmpl, ...)                                                   \
	script(d, rule, f, tmpl, (const int64_t[]){ __VA_ARGS__ },                      \
	       sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t))

static void test_defaults(void)
{
	struct ooms_detect_config c;

	memset(&c, 0xa5, sizeof(c));
	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	TAP_EQ_INT(c.res[RES_THREADS].count_limit, 750, "default thread count limit 750 (KOOM 2.x)");
	TAP_EQ_INT(c.res[RES_THREADS].count_gap, 50, "default thread count gap 50");
	TAP_EQ_INT(c.res[RES_THREADS].count_polls, 3, "default thread count polls 3");
	TAP_EQ_INT(c.res[RES_FDS].count_limit, 1000, "default fd count limit 1000 (KOOM 2.x)");
	TAP_EQ_INT(c.res[RES_FDS].count_gap, 50, "default fd count gap 50");
	TAP_EQ_INT(c.res[RES_FDS].count_polls, 3, "default fd count polls 3");
	TAP_OK(c.res[RES_FDS].ratio == 0.95, "default fd ratio 0.95 (Probe)");
	TAP_OK(c.res[RES_THREADS].ratio == 0.90, "default thread ratio 0.90");
	TAP_EQ_INT(c.res[RES_VMSIZE].count_limit, 3650000, "default VmSize limit 3,650,000 kB (KOOM 2.x)");
	TAP_EQ_INT(c.vmsize_limit_64bit, 0, "VmSize rule off for 64-bit targets by default");
}

static void test_names(void)
{
	TAP_EQ_STR(ooms_rule_name(RULE_THREAD_COUNT), "thread_count", "name thread_count");
	TAP_EQ_STR(ooms_rule_name(RULE_FD_COUNT), "fd_count", "name fd_count");
	TAP_EQ_STR(ooms_rule_name(RULE_FD_RATIO), "fd_ratio", "name fd_ratio");
	TAP_EQ_STR(ooms_rule_name(RULE_THREAD_RATIO), "thread_ratio", "name thread_ratio");
	TAP_EQ_STR(ooms_rule_name(RULE_VMSIZE), "vmsize", "name vmsize");
	TAP_EQ_STR(ooms_rule_name(RULE_MAX), "?", "out-of-range rule has a name, not a crash");
}

static void test_fd_count(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_sample q = quiet();

	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	c.res[RES_FDS].ratio = 0; /* isolate the count rule */

	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1001, 1002, 1004, 1005), "..F.",
		   "fd_count fires on the 3rd counted poll, not before");
	ooms_detect_init(&d, &c);
	SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1001, 1002, 1004);
	TAP_EQ_INT(last_x.rule, RULE_FD_COUNT, "fd_count crossing: rule id");
	TAP_EQ_INT(last_x.value, 1004, "fd_count crossing: value is the poll's fds");
	TAP_EQ_INT(last_x.limit, 1000, "fd_count crossing: limit is fd_count_limit");
	TAP_EQ_STR(last_x.reason, "1004 open fds > 1000 and not falling by more than 50, 3 polls in a row",
		   "fd_count reason sentence");

	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1000, 1000, 1000, 1000), "....",
		   "exactly at the limit does not count (strictly over)");

	/* 1200 -> 1100 falls by 100 > 50: the run restarts at 1100 */
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1100, 1200, 1100, 1200, 1250, 1260), ".....F",
		   "a dip of more than the gap resets the run");
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1100, 1100, 1049, 1049, 1049, 1049), ".....F",
		   "a dip of gap+1 resets the run");

	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1100, 1050, 1001), "..F",
		   "dips within the gap (50, 49) do not reset");
	TAP_EQ_INT(last_x.value, 1001, "value after tolerated dips is the current poll's");

	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1100, 1100, 900, 1100, 1100, 1100), ".....F",
		   "a poll under the limit resets the run");

	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1001, 1002, 1003, 1004, 1005, 1006, 1080, 1040),
		   "..F.....", "no re-fire while it keeps holding (rising and small dips)");

	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1001, 1002, 1003, 500, 1001, 1002, 1003),
		   "..F...F", "re-fires after a poll under the limit stopped it holding");
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1200, 1200, 1200, 1100, 1100, 1100, 1100),
		   "..F....", "a big dip that stays over 90%% of the limit does not re-arm it");
	TAP_EQ_INT((int)ooms_detect_recurred(&d, RULE_FD_COUNT), 1, "... it held again: one recurrence");
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 2150, 2199, 2200), "..F",
		   "fd_count fires again a step (its limit) over the last crossing, while it holds");
	TAP_OK(strstr(last_x.reason, "(up from 1200 at the last crossing)") != NULL, "the step said: %s",
	       last_x.reason);

	c.res[RES_FDS].count_polls = 1;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 999, 1001, 1002), ".F.",
		   "fd_count_polls 1 fires on the first counted poll");
	c.res[RES_FDS].count_polls = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 999, 999, 1001), "..F",
		   "fd_count_polls 0 behaves as 1 (a non-counting poll never holds)");
}

static void test_unknown(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_sample q = quiet();

	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	c.res[RES_FDS].ratio = 0;

	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1001, -1, 1002, -1, 1003), "....F",
		   "unknown fds (-1) neither count nor reset the run");
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1001, 1002, 1003, -1, 1004, -1, 1005), "..F....",
		   "unknown fds do not re-arm a holding rule");
	/* the gap is measured from the last known figure, 1200, across the -1 */
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 1200, 1200, -1, 1100, 1100, 1100), "......",
		   "a dip across an unknown poll is measured from the last known figure");

	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	ooms_detect_init(&d, &c);
	q.res[RES_FDS].limit = 1024;
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 973, -1, 980, 800, -1, 990), "F....F",
		   "fd_ratio: unknown fds neither fire nor re-arm");
	q = quiet();
	q.res[RES_FDS].limit = -1;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 973, 5000), "..",
		   "fd_ratio: unknown RLIMIT_NOFILE skips the rule");

	q = quiet();
	q.is_32bit = 1;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_VMSIZE, VMSIZE, q, -1, 3700000, -1, 3700001), ".F..",
		   "vmsize: unknown VmSize neither fires nor re-arms");

	/* one figure unknown does not disturb the other rules */
	q = quiet();
	ooms_detect_init(&d, &c);
	for (int i = 0; i < 3; i++) {
		struct ooms_crossing x[RULE_MAX];
		struct ooms_sample s = q;
		size_t k;

		s.res[RES_FDS].value = -1;
		s.res[RES_THREADS].value = 800 + i;
		k = ooms_detect_feed(&d, &s, x, RULE_MAX);
		if (i == 2)
			TAP_OK(k == 1 && x[0].rule == RULE_THREAD_COUNT,
			       "thread_count still fires while fds are unknown");
	}
}

static void test_thread_count(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_sample q = quiet();

	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	c.res[RES_THREADS].ratio = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_COUNT, THREADS, q, 750, 760, 770, 780, 600, 751, 752, 753),
		   "...F...F", "thread_count: over 750 for 3 polls, re-fires after a reset");
	TAP_EQ_INT(last_x.value, 753, "thread_count crossing value");
	TAP_EQ_INT(last_x.limit, 750, "thread_count crossing limit");
	TAP_EQ_STR(last_x.reason, "753 threads > 750 and not falling by more than 50, 3 polls in a row",
		   "thread_count reason sentence");

	/* thread and fd runs are independent */
	c.res[RES_FDS].ratio = 0;
	ooms_detect_init(&d, &c);
	for (int i = 0; i < 3; i++) {
		struct ooms_crossing x[RULE_MAX];
		struct ooms_sample s = q;
		size_t k;

		s.res[RES_THREADS].value = 800;
		s.res[RES_FDS].value = i == 1 ? 500 : 1100;
		k = ooms_detect_feed(&d, &s, x, RULE_MAX);
		if (i == 2)
			TAP_OK(k == 1 && x[0].rule == RULE_THREAD_COUNT,
			       "an fd reset does not reset the thread run");
	}
}

static void test_fd_ratio(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_sample q = quiet();

	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	q.res[RES_FDS].limit = 1024; /* ceil(0.95 * 1024) = ceil(972.8) = 973 */
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 972), ".", "972 of 1024 is under 95%%");
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 973), "F", "973 of 1024 reaches 95%% (boundary)");
	TAP_EQ_INT(last_x.rule, RULE_FD_RATIO, "fd_ratio crossing: rule id");
	TAP_EQ_INT(last_x.value, 973, "fd_ratio crossing: value is fds");
	TAP_EQ_INT(last_x.limit, 973, "fd_ratio crossing: limit is ceil(ratio * RLIMIT_NOFILE)");
	TAP_EQ_STR(last_x.reason, "973 open fds >= 95% of RLIMIT_NOFILE 1024", "fd_ratio reason sentence");
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 990, 1024, 972, 973), "....",
		   "fd_ratio: no re-fire while holding, nor after dipping just under");
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 876, 973, 875, 973), "...F",
		   "fd_ratio: re-armed under 90%% of the threshold (876 of 973 is not, 875 is)");

	/* a count oscillating at the limit: one crossing, its recurrences counted */
	ooms_detect_init(&d, &c);
	{
		char got[64] = {0};

		for (int i = 0; i < 40; i++) {
			struct ooms_sample s = q;
			struct ooms_crossing x[RULE_MAX];

			s.res[RES_FDS].value = i % 2 ? 900 : 1024;
			got[i] = ooms_detect_feed(&d, &s, x, RULE_MAX) ? 'F' : '.';
		}
		TAP_EQ_STR(got, "F.......................................", "fd_ratio at the limit for 40 polls: one crossing");
		TAP_EQ_INT((int)ooms_detect_recurred(&d, RULE_FD_RATIO), 19, "... and 19 recurrences");
	}

	q.res[RES_FDS].limit = 1000; /* 0.95 * 1000 = 950 exactly, must not round up to 951 */
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 949, 950), ".F", "950 of 1000 reaches 95%% exactly");

	c.res[RES_FDS].ratio = 0.07; /* 0.07 * 100 is 7.000000000000001 in doubles: still 7 */
	q.res[RES_FDS].limit = 100;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 6, 7), ".F", "7 of 100 reaches 7%% (no rounding up to 8)");
	TAP_EQ_INT(last_x.limit, 7, "fd_ratio 0.07 of 100: limit 7");

	q.res[RES_FDS].limit = 1000;
	c.res[RES_FDS].ratio = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 999, 1000), "..", "fd_ratio 0 disables the rule");
	c.res[RES_FDS].ratio = -1;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 999, 1000), "..", "negative fd_ratio disables the rule");
}

/* The default re-arm: the figure must stay under 90 % of the threshold for
 * 30 s; a table that fills and empties every few seconds is one crossing. */
static void test_rearm_time(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_sample q = quiet();

	ooms_detect_defaults(&c);
	TAP_OK(c.rearm_s == 30, "default re-arm after 30 s under");
	q.res[RES_FDS].limit = 1024;
	ooms_detect_init(&d, &c);
	/* full, empty, full... a poll a second: one crossing, recurrences */
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 1024, 3, 1024, 3, 1024, 3, 1024), "F......",
		   "fd_ratio: a table filled and emptied each second is one crossing");
	TAP_EQ_INT((int)ooms_detect_recurred(&d, RULE_FD_RATIO), 3, "... held again 3 times");
	/* 30 polls (30 s) under, then full again: a new crossing */
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 1024, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
			  3, 3, 3, 3, 3, 3, 3, 3, 3, 1024),
		   "F" "..............................." "F", "fd_ratio: under for 31 s, then full: a new crossing");
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 1024, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 900, 3, 3, 3, 3, 3, 3,
			  3, 3, 3, 3, 3, 3, 3, 3, 1024),
		   "F" "..............................", "a poll over the lower mark (900 of 973) restarts the 30 s");
}

static void test_thread_ratio(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_sample q = quiet();

	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	q.res[RES_THREADS].limit = 1000; /* 0.90 * 1000 is 900.0000000000001 in doubles: still 900 */
	q.res[RES_THREADS].limit_src = "threads-max";
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 899, 900), ".F", "900 of 1000 reaches 90%%, 899 not");
	TAP_EQ_INT(last_x.limit, 900, "thread_ratio crossing: limit 900");
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 950, 999, 1000, 1001), "..F.",
		   "thread_ratio fires again at a further 10%% of the limit (900 + 100)");
	TAP_EQ_STR(last_x.reason, "1000 threads >= 90% of the thread limit 1000 (threads-max) (up from 900 at the last crossing)",
		   "... and says so");
	ooms_detect_init(&d, &c);
	SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 912);
	TAP_EQ_INT(last_x.rule, RULE_THREAD_RATIO, "thread_ratio crossing: rule id");
	TAP_EQ_INT(last_x.value, 912, "thread_ratio crossing: value is threads");
	TAP_EQ_STR(last_x.reason, "912 threads >= 90% of the thread limit 1000 (threads-max)",
		   "thread_ratio reason names the limit's source");

	q.res[RES_THREADS].limit = 512;
	q.res[RES_THREADS].limit_src = "RLIMIT_NPROC";
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 460, 461), ".F", "ceil(0.9 * 512) = 461");
	TAP_OK(strstr(last_x.reason, "461") && strstr(last_x.reason, "512") &&
		       strstr(last_x.reason, "(RLIMIT_NPROC)"),
	       "reason has 461, 512 and RLIMIT_NPROC: %s", last_x.reason);

	q.res[RES_THREADS].limit_src = NULL;
	ooms_detect_init(&d, &c);
	SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 500);
	TAP_EQ_STR(last_x.reason, "500 threads >= 90% of the thread limit 512",
		   "no source: no parenthesis");

	q.res[RES_THREADS].limit = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 500), ".", "thread limit 0 (unknown) skips");
	q.res[RES_THREADS].limit = 512;
	c.res[RES_THREADS].ratio = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 512), ".", "thread_ratio 0 disables the rule");
}

static void test_vmsize(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_sample q = quiet();

	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_VMSIZE, VMSIZE, q, 3700000, 9000000), "..",
		   "vmsize: off for a 64-bit target by default");

	q.is_32bit = 1;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_VMSIZE, VMSIZE, q, 3650000, 3650001, 3700000, 3000000, 3700000),
		   ".F..F", "vmsize: 32-bit, strictly over 3,650,000 kB, re-arms when under");
	TAP_EQ_INT(last_x.rule, RULE_VMSIZE, "vmsize crossing: rule id");
	TAP_EQ_INT(last_x.value, 3700000, "vmsize crossing: value");
	TAP_EQ_INT(last_x.limit, 3650000, "vmsize crossing: limit");
	TAP_EQ_STR(last_x.reason, "3.53 GB of VmSize > 3.48 GB (32-bit target)", "vmsize reason in GB: %s", last_x.reason);

	q.is_32bit = 0;
	c.vmsize_limit_64bit = 1;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_VMSIZE, VMSIZE, q, 3650000, 3650001), ".F",
		   "vmsize_limit_64bit applies the rule to a 64-bit target");

	q.is_32bit = 1;
	c.res[RES_VMSIZE].count_limit = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_VMSIZE, VMSIZE, q, 9000000), ".", "vmsize limit 0 turns the rule off");
}

static void test_many(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_crossing x[RULE_MAX + 1];
	struct ooms_sample s = quiet();
	size_t k;

	ooms_detect_defaults(&c);
	c.rearm_s = 0; /* re-armed at once: the dips below are one poll long */
	s.res[RES_THREADS].value = 800;
	s.res[RES_THREADS].limit = 800;
	s.res[RES_THREADS].limit_src = "--thread-limit";
	s.res[RES_FDS].value = 1020;
	s.res[RES_FDS].limit = 1024;
	s.res[RES_VMSIZE].value = 4000000;
	s.is_32bit = 1;

	/* the count rules need 3 polls; the others fire on the first */
	ooms_detect_init(&d, &c);
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_EQ_INT(k, 3, "poll 1: fd_ratio, thread_ratio, vmsize");
	TAP_OK(k == 3 && x[0].rule == RULE_THREAD_RATIO && x[1].rule == RULE_FD_RATIO &&
		       x[2].rule == RULE_VMSIZE,
	       "poll 1: in rule order (the resources' table, then count, ratio, trend)");
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 0, "poll 2: nothing new");
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_OK(k == 2 && x[0].rule == RULE_THREAD_COUNT && x[1].rule == RULE_FD_COUNT,
	       "poll 3: thread_count and fd_count together");

	/* all five at once */
	c.res[RES_THREADS].count_polls = 1;
	c.res[RES_FDS].count_polls = 1;
	ooms_detect_init(&d, &c);
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_EQ_INT(k, 5, "five rules cross in one sample, all reported");
	if (k == 5) {
		TAP_OK(x[0].rule == RULE_THREAD_COUNT && x[0].value == 800 && x[0].limit == 750,
		       "thread_count 800 / 750");
		TAP_OK(x[1].rule == RULE_THREAD_RATIO && x[1].value == 800 && x[1].limit == 720,
		       "thread_ratio 800 / 720");
		TAP_OK(x[2].rule == RULE_FD_COUNT && x[2].value == 1020 && x[2].limit == 1000,
		       "fd_count 1020 / 1000");
		TAP_OK(x[3].rule == RULE_FD_RATIO && x[3].value == 1020 && x[3].limit == 973,
		       "fd_ratio 1020 / 973");
		TAP_OK(x[4].rule == RULE_VMSIZE && x[4].value == 4000000 && x[4].limit == 3650000,
		       "vmsize 4000000 / 3650000");
		TAP_OK(strstr(x[1].reason, "(--thread-limit)") != NULL, "thread_ratio reason: %s",
		       x[1].reason);
	}

	/* out smaller than the crossings: max respected, the rest not lost */
	ooms_detect_init(&d, &c);
	memset(x, 0x5a, sizeof(x));
	k = ooms_detect_feed(&d, &s, x, 2);
	TAP_EQ_INT(k, 2, "max 2: two crossings written");
	TAP_OK(x[0].rule == RULE_THREAD_COUNT && x[1].rule == RULE_THREAD_RATIO, "max 2: the first two rules");
	TAP_EQ_INT(((unsigned char *)&x[2])[0], 0x5a, "max 2: nothing written past out[1]");
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_EQ_INT(k, 3, "next sample: the three that did not fit are reported");
	TAP_OK(k == 3 && x[0].rule == RULE_FD_COUNT && x[1].rule == RULE_FD_RATIO &&
		       x[2].rule == RULE_VMSIZE,
	       "next sample: fd_count, fd_ratio, vmsize; the reported two not again");
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 0, "third sample: nothing");

	ooms_detect_init(&d, &c);
	memset(x, 0x5a, sizeof(x));
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, 0), 0, "max 0: nothing written");
	TAP_EQ_INT(((unsigned char *)&x[0])[0], 0x5a, "max 0: out untouched");
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 5, "max 0: all five reported at the next sample");
}

/* The trend: a steady fd leak fires once, with its time to exhaustion,
 * from half of the limit; a step then flat does not; the ratio's line is
 * the ratio's. */
static void test_trend(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_sample s = quiet();
	const char *pat;

	ooms_detect_defaults(&c);
	TAP_OK(c.res[RES_FDS].trend_s == 60 && c.res[RES_THREADS].trend_s == 60 && c.res[RES_VMSIZE].trend_s == 60 &&
	       c.res[RES_MEMFD].trend_s == 60, "every resource has a trend, 60 s by default");
	s.res[RES_FDS].limit = 1024;
	/* 10 fds a second from 400: half the limit at 512, 1024 reached 51 s later */
	ooms_detect_init(&d, &c);
	pat = SCRIPT(&d, OOMS_RULE(RES_FDS, RK_TREND), FDS, s, 400, 410, 420, 430, 440, 450, 460, 470, 480, 490, 500, 510,
		     520, 530, 540, 550);
	TAP_EQ_STR(pat, "............F...", "fd_trend: fires at half of RLIMIT_NOFILE, once");
	TAP_EQ_STR(last_x.reason, "520 open fds, rising 10.0 a second: RLIMIT_NOFILE 1024 exhausted in 50 s (under 60 s)",
		   "fd_trend's reason: the slope and the time to exhaustion");
	TAP_OK(last_x.value == 520 && last_x.limit == 1024, "fd_trend: the figure and the limit it heads for");
	/* slower: 1 fd a second exhausts in 500 s, not a trend */
	ooms_detect_init(&d, &c);
	pat = SCRIPT(&d, OOMS_RULE(RES_FDS, RK_TREND), FDS, s, 520, 521, 522, 523, 524, 525, 526, 527);
	TAP_EQ_STR(pat, "........", "1 fd a second at 520 of 1024: 500 s away, quiet");
	/* a step then flat: the window's newer half does not rise */
	ooms_detect_init(&d, &c);
	pat = SCRIPT(&d, OOMS_RULE(RES_FDS, RK_TREND), FDS, s, 10, 10, 900, 900, 900, 900, 900, 900);
	TAP_EQ_STR(pat, "........", "a step to 900 then flat: not a trend");
	/* at the ratio's line the ratio rule speaks, not the trend */
	ooms_detect_init(&d, &c);
	pat = SCRIPT(&d, OOMS_RULE(RES_FDS, RK_TREND), FDS, s, 900, 950, 980, 1000, 1010);
	TAP_EQ_STR(pat, ".....", "over 95%% of the limit: the trend is quiet");
	/* a falling figure */
	ooms_detect_init(&d, &c);
	pat = SCRIPT(&d, OOMS_RULE(RES_FDS, RK_TREND), FDS, s, 900, 850, 800, 750, 700, 650);
	TAP_EQ_STR(pat, "......", "falling: quiet");
	/* off */
	c.res[RES_FDS].trend_s = 0;
	ooms_detect_init(&d, &c);
	pat = SCRIPT(&d, OOMS_RULE(RES_FDS, RK_TREND), FDS, s, 400, 450, 500, 550, 600, 650, 700);
	TAP_EQ_STR(pat, ".......", "trend_s 0: off");

	/* threads, against their limit and its source */
	ooms_detect_defaults(&c);
	s.res[RES_THREADS].limit = 1000;
	s.res[RES_THREADS].limit_src = "pids.max";
	ooms_detect_init(&d, &c);
	pat = SCRIPT(&d, OOMS_RULE(RES_THREADS, RK_TREND), THREADS, s, 440, 460, 480, 500, 520, 540);
	TAP_EQ_STR(pat, "...F..", "thread_trend: 20 threads a second, at half of the limit: 25 s from it");
	TAP_EQ_STR(last_x.reason, "500 threads, rising 20.0 a second: the thread limit 1000 (pids.max) exhausted in 25 s (under 60 s)",
		   "thread_trend's reason");
	/* VmSize against RLIMIT_AS, on a 64-bit target too */
	s.res[RES_VMSIZE].limit = 4000000;
	ooms_detect_init(&d, &c);
	pat = SCRIPT(&d, OOMS_RULE(RES_VMSIZE, RK_TREND), VMSIZE, s, 1900000, 2000000, 2100000, 2200000, 2300000);
	TAP_EQ_STR(pat, "...F.", "vmsize_trend: 100 MB a second against RLIMIT_AS");
	TAP_EQ_STR(last_x.reason, "2.10 GB of VmSize, rising 97.7 MB/s: RLIMIT_AS of 3.81 GB exhausted in 18 s (under 60 s)",
		   "vmsize_trend's reason: sizes in GB, the rate in MB/s");
}

/* memfd/ashmem fds: a ratio of RLIMIT_NOFILE (half), no count rule unless asked. */
static void test_memfd(void)
{
	struct ooms_detect_config c;
	struct ooms_detector d;
	struct ooms_crossing x[RULE_MAX];
	struct ooms_sample s = quiet();
	size_t k;

	ooms_detect_defaults(&c);
	ooms_detect_init(&d, &c);
	s.res[RES_MEMFD].limit = 1024;
	s.res[RES_MEMFD].value = 511;
	TAP_EQ_INT(ooms_detect_feed_instant(&d, &s, x, RULE_MAX), 0, "511 memfds of 1024: under half");
	s.res[RES_MEMFD].value = 512;
	k = ooms_detect_feed_instant(&d, &s, x, RULE_MAX);
	TAP_OK(k == 1 && x[0].rule == OOMS_RULE(RES_MEMFD, RK_RATIO) && !strcmp(ooms_rule_name(x[0].rule), "memfd_ratio"),
	       "512: memfd_ratio, checked on events as on samples");
	TAP_EQ_STR(x[0].reason, "512 memfd/ashmem fds >= 50% of RLIMIT_NOFILE 1024", "memfd_ratio's reason");
	s.res[RES_MEMFD].value = 5000;
	s.res[RES_MEMFD].limit = 100000;
	ooms_detect_init(&d, &c);
	for (int i = 0; i < 4; i++)
		TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 0, "5000 memfds, no count rule by default (%d)", i);
}

/* --rule NAME=N: every rule of every resource by its name. */
static void test_set(void)
{
	struct ooms_detect_config c;

	ooms_detect_defaults(&c);
	TAP_OK(!ooms_detect_set(&c, "memfd_count=300") && c.res[RES_MEMFD].count_limit == 300, "memfd_count=300");
	TAP_OK(!ooms_detect_set(&c, "memfd_count_polls=2") && c.res[RES_MEMFD].count_polls == 2, "memfd_count_polls=2");
	TAP_OK(!ooms_detect_set(&c, "fd_count_gap=20") && c.res[RES_FDS].count_gap == 20, "fd_count_gap=20");
	TAP_OK(!ooms_detect_set(&c, "thread_trend=30") && c.res[RES_THREADS].trend_s == 30, "thread_trend=30");
	TAP_OK(!ooms_detect_set(&c, "vmsize_ratio=0.8") && c.res[RES_VMSIZE].ratio == 0.8, "vmsize_ratio=0.8");
	TAP_OK(!ooms_detect_set(&c, "vmsize=3000000") && c.res[RES_VMSIZE].count_limit == 3000000, "vmsize=3000000");
	TAP_OK(!ooms_detect_set(&c, "fd_trend=0") && c.res[RES_FDS].trend_s == 0, "fd_trend=0: off");
	TAP_OK(ooms_detect_set(&c, "fd_ratio=1.5") && ooms_detect_set(&c, "fd_trend=-1") && ooms_detect_set(&c, "fd_trend=") &&
	       ooms_detect_set(&c, "fd_trend") && ooms_detect_set(&c, "sockets_ratio=0.5") &&
	       ooms_detect_set(&c, "fd_ratio_gap=3") && ooms_detect_set(&c, "=3") && ooms_detect_set(&c, "fd_trend=1x"),
	       "a ratio over 1, a negative, an empty, no number, an unknown rule, a gap on a ratio: refused");
	TAP_OK(ooms_rule_find("memfd_trend") == OOMS_RULE(RES_MEMFD, RK_TREND) && ooms_rule_find("nope") == -1,
	       "rules found by name");
	for (int r = 0; r < RES_MAX; r++)
		TAP_OK(ooms_resource_find(ooms_resources[r].name) == r && ooms_resources[r].title &&
			       ooms_resources[r].limit_key && ooms_resources[r].what,
		       "row %s: named, found, its words", ooms_resources[r].name);
}

int main(void)
{
	test_defaults();
	test_names();
	test_fd_count();
	test_unknown();
	test_thread_count();
	test_fd_ratio();
	test_thread_ratio();
	test_rearm_time();
	test_vmsize();
	test_many();
	test_trend();
	test_memfd();
	test_set();
	return tap_done();
}
