/* The detectors against scripted sample sequences. */
#include <string.h>
#include "detect/detect.h"
#include "tap.h"

static struct ooms_sample smp(int64_t fds, int64_t threads)
{
	struct ooms_sample s;

	memset(&s, 0, sizeof(s));
	s.fds = fds;
	s.threads = threads;
	s.fd_limit = 1 << 20;
	s.thread_limit = 1 << 20;
	s.vmsize_kb = 1000;
	return s;
}

/* Feeds fds values; returns the 1-based poll at which fd_count first fired (0 = never). */
static int fd_count_fires_at(const int64_t *v, int n, struct ooms_detector *d)
{
	struct ooms_crossing x[RULE_MAX];

	for (int i = 0; i < n; i++) {
		struct ooms_sample s = smp(v[i], 1);
		size_t k = ooms_detect_feed(d, &s, x, RULE_MAX);

		for (size_t j = 0; j < k; j++)
			if (x[j].rule == RULE_FD_COUNT)
				return i + 1;
	}
	return 0;
}

int main(void)
{
	struct ooms_detect_config cfg;
	struct ooms_detector d;
	struct ooms_crossing x[RULE_MAX];
	struct ooms_sample s;
	size_t k;

	ooms_detect_defaults(&cfg);
	TAP_EQ_INT(cfg.thread_count_limit, 750, "KOOM 2.x thread limit 750");
	TAP_EQ_INT(cfg.fd_count_limit, 1000, "KOOM 2.x fd limit 1000");
	TAP_OK(cfg.thread_count_gap == 50 && cfg.fd_count_gap == 50, "gap 50");
	TAP_OK(cfg.thread_count_polls == 3 && cfg.fd_count_polls == 3, "3 polls");
	TAP_OK(cfg.fd_ratio == 0.95, "Probe fd ratio 95%%");
	TAP_EQ_INT(cfg.vmsize_limit_kb, 3650000, "VmSize 3,650,000 kB");
	cfg.fd_ratio = 0; /* isolate the count rule below */

	{
		int64_t v[] = {1001, 1002, 1003, 1004};
		ooms_detect_init(&d, &cfg);
		TAP_EQ_INT(fd_count_fires_at(v, 4, &d), 3, "fires on the 3rd counted poll, not before");
	}
	{
		int64_t v[] = {1100, 1200, 1100, 1200, 1250, 1260};
		ooms_detect_init(&d, &cfg);
		TAP_EQ_INT(fd_count_fires_at(v, 6, &d), 6, "a dip of more than the gap resets the run");
	}
	{
		int64_t v[] = {1100, 1060, 1020};
		ooms_detect_init(&d, &cfg);
		TAP_EQ_INT(fd_count_fires_at(v, 3, &d), 3, "a dip within the gap still counts");
	}
	{
		int64_t v[] = {1100, 1100, 900, 1100, 1100};
		ooms_detect_init(&d, &cfg);
		TAP_EQ_INT(fd_count_fires_at(v, 5, &d), 0, "a poll under the limit resets");
	}
	{
		int64_t v[] = {1001, 1002, 1003, 1004, 1005, 1006};
		ooms_detect_init(&d, &cfg);
		TAP_EQ_INT(fd_count_fires_at(v, 3, &d), 3, "fires once");
		TAP_EQ_INT(fd_count_fires_at(v + 3, 3, &d), 0, "no re-fire while it holds");
	}
	{
		int64_t v[] = {1001, 1002, 1003, 500, 1001, 1002, 1003};
		ooms_detect_init(&d, &cfg);
		TAP_EQ_INT(fd_count_fires_at(v, 3, &d), 3, "first firing");
		TAP_EQ_INT(fd_count_fires_at(v + 3, 4, &d), 4, "fires again after it stopped holding");
	}
	{
		int64_t v[] = {1001, -1, 1002, 1003};
		ooms_detect_init(&d, &cfg);
		TAP_EQ_INT(fd_count_fires_at(v, 4, &d), 4, "an unknown figure neither counts nor resets");
	}
	/* the crossing's numbers */
	ooms_detect_init(&d, &cfg);
	for (int i = 0; i < 3; i++) {
		s = smp(1004, 1);
		k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	}
	TAP_EQ_INT(k, 1, "one crossing");
	TAP_EQ_INT(x[0].rule, RULE_FD_COUNT, "rule fd_count");
	TAP_OK(x[0].value == 1004 && x[0].limit == 1000, "value and limit");
	TAP_OK(strstr(x[0].reason, "1004 open fds > 1000") && strstr(x[0].reason, "3 polls in a row"),
	       "reason has the numbers: %s", x[0].reason);
	TAP_EQ_STR(ooms_rule_name(RULE_FD_COUNT), "fd_count", "rule name");

	/* fd ratio boundary: ceil(0.95 * 1024) = 973 */
	ooms_detect_defaults(&cfg);
	ooms_detect_init(&d, &cfg);
	s = smp(972, 1);
	s.fd_limit = 1024;
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 0, "972 of 1024 does not cross 95%%");
	s.fds = 973;
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_OK(k == 1 && x[0].rule == RULE_FD_RATIO && x[0].limit == 973 && x[0].value == 973,
	       "973 of 1024 crosses 95%%");
	TAP_OK(strstr(x[0].reason, "RLIMIT_NOFILE 1024") != NULL, "ratio reason: %s", x[0].reason);

	/* thread ratio names the limit's source */
	ooms_detect_init(&d, &cfg);
	s = smp(1, 912);
	s.thread_limit = 1000;
	s.thread_limit_src = "threads-max";
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_OK(k == 1 && x[0].rule == RULE_THREAD_RATIO && x[0].limit == 900, "912 of 1000 crosses 90%%");
	TAP_OK(strstr(x[0].reason, "912") && strstr(x[0].reason, "(threads-max)"), "reason: %s", x[0].reason);

	/* VmSize only for 32-bit unless asked */
	ooms_detect_init(&d, &cfg);
	s = smp(1, 1);
	s.vmsize_kb = 3700000;
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 0, "64-bit target: VmSize rule off by default");
	s.is_32bit = 1;
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_OK(k == 1 && x[0].rule == RULE_VMSIZE && x[0].value == 3700000, "32-bit target over 3,650,000 kB");
	cfg.vmsize_limit_64bit = 1;
	ooms_detect_init(&d, &cfg);
	s.is_32bit = 0;
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, RULE_MAX), 1, "--vmsize-64bit applies it to 64-bit");

	/* several rules in one sample, and the out buffer's size respected */
	ooms_detect_defaults(&cfg);
	cfg.fd_count_polls = 1;
	cfg.thread_count_polls = 1;
	ooms_detect_init(&d, &cfg);
	s = smp(1020, 800);
	s.fd_limit = 1024;
	s.thread_limit = 800;
	k = ooms_detect_feed(&d, &s, x, RULE_MAX);
	TAP_EQ_INT(k, 4, "thread_count, fd_count, fd_ratio and thread_ratio in one sample");
	ooms_detect_init(&d, &cfg);
	TAP_EQ_INT(ooms_detect_feed(&d, &s, x, 2), 2, "at most max crossings written");
	return tap_done();
}
