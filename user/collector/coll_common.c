/* What the collector's files share: time, the target still ours, its totals, its own cost. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include <unistd.h>
#include "util/clock.h"

#include <math.h>
#include <sys/resource.h>


/* Crossings of every rule: the detectors' and the heap rule's. */
int coll_crossings(struct coll *c)
{
	return c->crossings + (c->jheap ? ooms_jheap_crossings(c->jheap) : 0);
}

int coll_target_ours(struct coll *c)
{
	if (c->pidfd >= 0 && syscall(SYS_pidfd_send_signal, c->pidfd, 0, NULL, 0) != 0 && errno == ESRCH)
		return 0;
	return c->start_time <= 0 || proc_start_time(c->pid) == c->start_time;
}

uint64_t coll_now_ns(void)
{
	return mono_ns();
}

double coll_since(struct coll *c)
{
	return (coll_now_ns() - c->start_ns) / 1e9;
}

void coll_own_cost(double *cpu_s, uint64_t *peak_rss_kb)
{
	struct rusage ru;

	*cpu_s = NAN;
	*peak_rss_kb = 0;
	if (getrusage(RUSAGE_SELF, &ru))
		return;
	*cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	*peak_rss_kb = (uint64_t)ru.ru_maxrss;
}
