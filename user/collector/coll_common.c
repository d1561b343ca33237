/* What the collector's files share: time, errors, the timeline writer. */
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

volatile struct ooms_totals *coll_totals(struct coll *c)
{
	return &c->skel->bss->totals;
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

/* One record to the timeline in one write: a full disk never leaves half
 * a line (what was written of it is cut off again). A record that cannot be
 * written is counted (the end record's timeline_lost); the first such is
 * said once on stderr, and the watch goes on. */
static void timeline_write(struct coll *c, void (*body)(struct json *j, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0, done = 0;
	FILE *m = open_memstream(&buf, &len);
	int fd = fileno(c->timeline), err = 0;
	off_t at;
	struct json j;

	if (!m) {
		err = errno;
		goto lost;
	}
	json_init(&j, m, 0);
	body(&j, arg);
	json_end_line(&j);
	if (fclose(m) || !buf) {
		err = ENOMEM;
		goto lost;
	}
	at = lseek(fd, 0, SEEK_END);
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : ENOSPC;
			if (at >= 0 && ftruncate(fd, at) == 0)
				lseek(fd, at, SEEK_SET);
			goto lost;
		}
		done += (size_t)n;
	}
	free(buf);
	return;
lost:
	free(buf);
	if (!c->timeline_lost++)
		coll_err("timeline: %s: records from %.1f s on are not written (the watch goes on; its live output "
			 "and the snapshot files still are)", strerror(err), coll_since(c));
}

/* One JSON object per line to the timeline, and to stdout with --json. */
void coll_emit(struct coll *c, void (*body)(struct json *j, void *arg), void *arg)
{
	struct json j;

	if (c->timeline)
		timeline_write(c, body, arg);
	if (c->o->json) {
		json_init(&j, stdout, 0);
		body(&j, arg);
		json_end_line(&j);
		fflush(stdout);
	}
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
