/* The detectors against scripted sample sequences. */
#include <string.h>
#include "detect/detect.h"
#include "tap.h"

/* A sample where every figure is known and far from every limit. */
static struct ooms_sample quiet(void)
{
	struct ooms_sample s;

	memset(&s, 0, sizeof(s));
	s.fds = 10;
	s.threads = 10;
	s.fd_limit = 1 << 20;
	s.thread_limit = 1 << 20;
	s.vmsize_kb = 1000;
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
			s.fds = v[i];
		else if (f == THREADS)
			s.threads = v[i];
		else
			s.vmsize_kb = v[i];
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
	TAP_EQ_INT(c.thread_count_limit, 750, "default thread count limit 750 (KOOM 2.x)");
	TAP_EQ_INT(c.thread_count_gap, 50, "default thread count gap 50");
	TAP_EQ_INT(c.thread_count_polls, 3, "default thread count polls 3");
	TAP_EQ_INT(c.fd_count_limit, 1000, "default fd count limit 1000 (KOOM 2.x)");
	TAP_EQ_INT(c.fd_count_gap, 50, "default fd count gap 50");
	TAP_EQ_INT(c.fd_count_polls, 3, "default fd count polls 3");
	TAP_OK(c.fd_ratio == 0.95, "default fd ratio 0.95 (Probe)");
	TAP_OK(c.thread_ratio == 0.90, "default thread ratio 0.90");
	TAP_EQ_INT(c.vmsize_limit_kb, 3650000, "default VmSize limit 3,650,000 kB (KOOM 2.x)");
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
	c.fd_ratio = 0; /* isolate the count rule */

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

	c.fd_count_polls = 1;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_COUNT, FDS, q, 999, 1001, 1002), ".F.",
		   "fd_count_polls 1 fires on the first counted poll");
	c.fd_count_polls = 0;
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
	c.fd_ratio = 0;

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
	q.fd_limit = 1024;
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 973, -1, 980, 800, -1, 990), "F....F",
		   "fd_ratio: unknown fds neither fire nor re-arm");
	q = quiet();
	q.fd_limit = -1;
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

		s.fds = -1;
		s.threads = 800 + i;
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
	c.thread_ratio = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_COUNT, THREADS, q, 750, 760, 770, 780, 600, 751, 752, 753),
		   "...F...F", "thread_count: over 750 for 3 polls, re-fires after a reset");
	TAP_EQ_INT(last_x.value, 753, "thread_count crossing value");
	TAP_EQ_INT(last_x.limit, 750, "thread_count crossing limit");
	TAP_EQ_STR(last_x.reason, "753 threads > 750 and not falling by more than 50, 3 polls in a row",
		   "thread_count reason sentence");

	/* thread and fd runs are independent */
	c.fd_ratio = 0;
	ooms_detect_init(&d, &c);
	for (int i = 0; i < 3; i++) {
		struct ooms_crossing x[RULE_MAX];
		struct ooms_sample s = q;
		size_t k;

		s.threads = 800;
		s.fds = i == 1 ? 500 : 1100;
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
	q.fd_limit = 1024; /* ceil(0.95 * 1024) = ceil(972.8) = 973 */
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

			s.fds = i % 2 ? 900 : 1024;
			got[i] = ooms_detect_feed(&d, &s, x, RULE_MAX) ? 'F' : '.';
		}
		TAP_EQ_STR(got, "F.......................................", "fd_ratio at the limit for 40 polls: one crossing");
		TAP_EQ_INT((int)ooms_detect_recurred(&d, RULE_FD_RATIO), 19, "... and 19 recurrences");
	}

	q.fd_limit = 1000; /* 0.95 * 1000 = 950 exactly, must not round up to 951 */
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 949, 950), ".F", "950 of 1000 reaches 95%% exactly");

	c.fd_ratio = 0.07; /* 0.07 * 100 is 7.000000000000001 in doubles: still 7 */
	q.fd_limit = 100;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 6, 7), ".F", "7 of 100 reaches 7%% (no rounding up to 8)");
	TAP_EQ_INT(last_x.limit, 7, "fd_ratio 0.07 of 100: limit 7");

	q.fd_limit = 1000;
	c.fd_ratio = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_FD_RATIO, FDS, q, 999, 1000), "..", "fd_ratio 0 disables the rule");
	c.fd_ratio = -1;
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
	q.fd_limit = 1024;
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
	q.thread_limit = 1000; /* 0.90 * 1000 is 900.0000000000001 in doubles: still 900 */
	q.thread_limit_src = "threads-max";
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 899, 900), ".F", "900 of 1000 reaches 90%%, 899 not");
	TAP_EQ_INT(last_x.limit, 900, "thread_ratio crossing: limit 900");
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 950, 999, 1000, 1001), "..F.",
		   "thread_ratio fires again at a further 10%% of the limit (900 + 100)");
	TAP_EQ_STR(last_x.reason, "thread count 1000 >= 90% of the thread limit 1000 (threads-max) (up from 900 at the last crossing)",
		   "... and says so");
	ooms_detect_init(&d, &c);
	SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 912);
	TAP_EQ_INT(last_x.rule, RULE_THREAD_RATIO, "thread_ratio crossing: rule id");
	TAP_EQ_INT(last_x.value, 912, "thread_ratio crossing: value is threads");
	TAP_EQ_STR(last_x.reason, "thread count 912 >= 90% of the thread limit 1000 (threads-max)",
		   "thread_ratio reason names the limit's source");

	q.thread_limit = 512;
	q.thread_limit_src = "RLIMIT_NPROC";
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 460, 461), ".F", "ceil(0.9 * 512) = 461");
	TAP_OK(strstr(last_x.reason, "461") && strstr(last_x.reason, "512") &&
		       strstr(last_x.reason, "(RLIMIT_NPROC)"),
	       "reason has 461, 512 and RLIMIT_NPROC: %s", last_x.reason);

	q.thread_limit_src = NULL;
	ooms_detect_init(&d, &c);
	SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 500);
	TAP_EQ_STR(last_x.reason, "thread count 500 >= 90% of the thread limit 512",
		   "no source: no parenthesis");

	q.thread_limit = 0;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_THREAD_RATIO, THREADS, q, 500), ".", "thread limit 0 (unknown) skips");
	q.thread_limit = 512;
	c.thread_ratio = 0;
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
	TAP_OK(strstr(last_x.reason, "3700000") && strstr(last_x.reason, "3650000"),
	       "vmsize reason has the numbers: %s", last_x.reason);

	q.is_32bit = 0;
	c.vmsize_limit_64bit = 1;
	ooms_detect_init(&d, &c);
	TAP_EQ_STR(SCRIPT(&d, RULE_VMSIZE, VMSIZE, q, 3650000, 3650001), ".F",
		   "vmsize_limit_64bit applies the rule to a 64-bit target");

	q.is_32bit = 1;
	c.vmsize_limit_kb = 0;
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
	s.threads = 800;
	s.thread_limit = 800;
	s.thread_limit_src = "--thread-limit";
	s.fds = 1020;
	s.fd_limit = 1024;
	s.vmsize_kb = 4000000;
	s.is_32bit = 1;

	/* the count rules need 3 polls; the others fire on the first */
	ooms_detect_init(&d, &c);
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_EQ_INT(k, 3, "poll 1: fd_ratio, thread_ratio, vmsize");
	TAP_OK(k == 3 && x[0].rule == RULE_FD_RATIO && x[1].rule == RULE_THREAD_RATIO &&
		       x[2].rule == RULE_VMSIZE,
	       "poll 1: in rule order");
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 0, "poll 2: nothing new");
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_OK(k == 2 && x[0].rule == RULE_THREAD_COUNT && x[1].rule == RULE_FD_COUNT,
	       "poll 3: thread_count and fd_count together");

	/* all five at once */
	c.thread_count_polls = 1;
	c.fd_count_polls = 1;
	ooms_detect_init(&d, &c);
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_EQ_INT(k, 5, "five rules cross in one sample, all reported");
	if (k == 5) {
		TAP_OK(x[0].rule == RULE_THREAD_COUNT && x[0].value == 800 && x[0].limit == 750,
		       "thread_count 800 / 750");
		TAP_OK(x[1].rule == RULE_FD_COUNT && x[1].value == 1020 && x[1].limit == 1000,
		       "fd_count 1020 / 1000");
		TAP_OK(x[2].rule == RULE_FD_RATIO && x[2].value == 1020 && x[2].limit == 973,
		       "fd_ratio 1020 / 973");
		TAP_OK(x[3].rule == RULE_THREAD_RATIO && x[3].value == 800 && x[3].limit == 720,
		       "thread_ratio 800 / 720");
		TAP_OK(x[4].rule == RULE_VMSIZE && x[4].value == 4000000 && x[4].limit == 3650000,
		       "vmsize 4000000 / 3650000");
		TAP_OK(strstr(x[3].reason, "(--thread-limit)") != NULL, "thread_ratio reason: %s",
		       x[3].reason);
	}

	/* out smaller than the crossings: max respected, the rest not lost */
	ooms_detect_init(&d, &c);
	memset(x, 0x5a, sizeof(x));
	k = ooms_detect_feed(&d, &s, x, 2);
	TAP_EQ_INT(k, 2, "max 2: two crossings written");
	TAP_OK(x[0].rule == RULE_THREAD_COUNT && x[1].rule == RULE_FD_COUNT, "max 2: the first two rules");
	TAP_EQ_INT(((unsigned char *)&x[2])[0], 0x5a, "max 2: nothing written past out[1]");
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_EQ_INT(k, 3, "next sample: the three that did not fit are reported");
	TAP_OK(k == 3 && x[0].rule == RULE_FD_RATIO && x[1].rule == RULE_THREAD_RATIO &&
		       x[2].rule == RULE_VMSIZE,
	       "next sample: fd_ratio, thread_ratio, vmsize; the reported two not again");
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 0, "third sample: nothing");

	ooms_detect_init(&d, &c);
	memset(x, 0x5a, sizeof(x));
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, 0), 0, "max 0: nothing written");
	TAP_EQ_INT(((unsigned char *)&x[0])[0], 0x5a, "max 0: out untouched");
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 5, "max 0: all five reported at the next sample");
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
	return tap_done();
}
