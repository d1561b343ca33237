/* How a target ended, classified from the kernel side's records alone
 * (collector/end_cause.c), and the detector's rules checked on events. */
#include <signal.h>
#include <string.h>
#include "collector/end/end_cause.h"
#include "detect/detect.h"
#include "tap.h"

static struct ooms_sig_rec sigs[OOMS_NSIG];

static void sent(int sig, uint32_t tgid, const char *comm, int code)
{
	sigs[sig].count++;
	sigs[sig].sender_tgid = tgid;
	sigs[sig].code = code;
	snprintf(sigs[sig].sender_comm, sizeof(sigs[sig].sender_comm), "%s", comm);
}

static struct ooms_death died(int status)
{
	struct ooms_death d = {.ts_ns = 5000000000ull, .exit_code = status, .last_tid = 100};

	return d;
}

static void test_exit_and_signals(void)
{
	struct ooms_death_rec r;
	struct ooms_death d = died(3 << 8);

	memset(sigs, 0, sizeof(sigs));
	ooms_death_classify(&d, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "exit", "exit(3) is an exit");
	TAP_EQ_INT(r.code, 3, "with its code");
	TAP_EQ_STR(r.sentence, "exited with code 3", "said so");

	sent(SIGABRT, 100, "app", -6 /* SI_TKILL */);
	d = died(SIGABRT | 0x80);
	ooms_death_classify(&d, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "self-signal", "abort(): a signal it sent itself");
	TAP_OK(r.core && r.signal == SIGABRT, "SIGABRT with a core dump");
	TAP_OK(strstr(r.sentence, "SIGABRT that it sent itself (abort())") != NULL, "named: %s", r.sentence);

	sent(SIGSEGV, 100, "worker", 1 /* SEGV_MAPERR */);
	d = died(SIGSEGV);
	ooms_death_classify(&d, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "fault", "a SIGSEGV the kernel raised for a fault");

	sent(SIGKILL, 321, "lmkd", 0);
	d = died(SIGKILL);
	ooms_death_classify(&d, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "lmkd", "Android's lmkd named");
	sent(SIGKILL, 321, "lmkd_reaper0", 0);
	d = died(SIGKILL);
	ooms_death_classify(&d, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "lmkd", "lmkd's reaper thread named lmkd's");
	TAP_OK(strstr(r.sentence, "lmkd") != NULL, "... in the sentence: %s", r.sentence);
	sent(SIGKILL, 321, "lmkdx", 0);
	d = died(SIGKILL);
	ooms_death_classify(&d, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "signal", "a name that only starts like lmkd's is not");

	sent(SIGTERM, 555, "bash", 0);
	d = died(SIGTERM);
	ooms_death_classify(&d, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "signal", "another process's signal");
	TAP_OK(strstr(r.sentence, "sent by PID 555 (bash)") != NULL, "with its sender: %s", r.sentence);

	ooms_death_classify(NULL, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "unknown", "no record, no wait status: unknown, not a guess");
	ooms_death_classify(NULL, sigs, OOMS_NSIG, NULL, 100, NULL, NULL, 7 << 8, &r);
	TAP_EQ_INT(r.code, 7, "a launched target's wait status is used when the kernel side saw nothing");
}

static void test_oom(void)
{
	struct ooms_death_rec r;
	struct ooms_death d = died(SIGKILL);
	struct ooms_oom_victim oom = {.ts_ns = 4999000000ull, .anon_rss_kb = 65280, .total_vm_kb = 68268,
				      .killer_tgid = 100};
	struct ooms_cgroup before, after;

	memset(sigs, 0, sizeof(sigs));
	sent(SIGKILL, 100, "app", 0x80);
	memset(&before, 0, sizeof(before));
	snprintf(before.mem_dir, sizeof(before.mem_dir), "/sys/fs/cgroup/memory/x");
	snprintf(before.mem_name, sizeof(before.mem_name), "/x");
	before.mem_limit = 64 << 20;
	before.mem_hits = 10;
	after = before;
	after.mem_hits = 40;
	ooms_death_classify(&d, sigs, OOMS_NSIG, &oom, 100, &before, &after, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "oom-cgroup", "OOM kill with the cgroup's limit hit since");
	TAP_OK(strstr(r.sentence, "memory cgroup /x at its limit of 64.0 MB") != NULL, "named: %s", r.sentence);
	after.mem_hits = 10;
	ooms_death_classify(&d, sigs, OOMS_NSIG, &oom, 100, &before, &after, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "oom-killer", "no limit hit: the global OOM killer");
	oom.ts_ns = 0;
	ooms_death_classify(&d, sigs, OOMS_NSIG, &oom, 100, &before, &after, -1, &r);
	TAP_EQ_STR(ooms_death_cause_name(r.cause), "kernel-signal", "a SIGKILL from the kernel without mark_victim is not an OOM kill");
}

static void test_instant_rules(void)
{
	struct ooms_detect_config cfg;
	struct ooms_detector d;
	struct ooms_crossing xs[RULE_MAX];
	struct ooms_sample s;

	ooms_detect_defaults(&cfg);
	ooms_detect_init(&d, &cfg);
	memset(&s, 0, sizeof(s));
	s.rss_kb = s.res[RES_VMSIZE].value = -1;
	s.res[RES_THREADS].value = 1;
	s.res[RES_THREADS].limit = 100;
	s.res[RES_FDS].value = 972;
	s.res[RES_FDS].limit = 1024;
	TAP_EQ_INT(ooms_detect_feed_instant(&d, &s, xs, RULE_MAX), 0, "972 of 1024 fds: below 95%%");
	s.res[RES_FDS].value = 973;
	TAP_EQ_INT(ooms_detect_feed_instant(&d, &s, xs, RULE_MAX), 1, "973 of 1024 on an event: fd_ratio crosses");
	TAP_EQ_INT(xs[0].rule, RULE_FD_RATIO, "the fd ratio rule");
	s.res[RES_FDS].value = 1024;
	TAP_EQ_INT(ooms_detect_feed_instant(&d, &s, xs, RULE_MAX), 0, "once, not at every event after");
	TAP_EQ_INT(ooms_detect_feed(&d, &s, xs, RULE_MAX), 0, "nor at the next sample (the armed state is shared)");
	s.res[RES_FDS].value = 2000;
	s.res[RES_FDS].limit = 100000;
	for (int i = 0; i < 5; i++)
		TAP_EQ_INT(ooms_detect_feed_instant(&d, &s, xs, RULE_MAX), 0,
			   "the count rule (polls in a row) is not run on events (%d)", i);
}

int main(void)
{
	test_exit_and_signals();
	test_oom();
	test_instant_rules();
	return tap_done();
}
