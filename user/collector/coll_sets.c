/* The kernel side's sets read back as a snapshot (between samples, at the
 * death), and compared with /proc each sample: drift repaired and said. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "run/records.h"
#include "run/timeline.h"

/* Reads the ring until the collector has every event the kernel side had
 * sent when asked (bounded: 100 ms; nothing when called from inside a ring
 * callback). Whether any was read. */
static int read_sent(struct coll *c)
{
	uint64_t sent = coll_k_totals(&c->k)->events_sent, before = ooms_attrib_events(c->attrib);

	for (int i = 0; i < 100 && coll_k_read_ring(&c->k) == 0 && ooms_attrib_events(c->attrib) < sent; i++)
		usleep(1000);
	return ooms_attrib_events(c->attrib) != before;
}

/* The sets as the kernel side holds them now (kernel/set_snapshot.h). 0 or -errno. */
int coll_held_snapshot(struct coll *c, struct ooms_snapshot *s)
{
	size_t unnamed = 0;
	struct ooms_held_sets h = {.attrib = c->attrib, .last = &c->last, .unnamed = &unnamed};
	int e;

	/* A thread or fd in the sets may have its creation event still in the
	 * ring buffer (the kernel adds to the set, then sends). Its stack is
	 * given when the snapshot is written, so what was sent is read after
	 * the sets are. An fd's path comes from that event too when /proc can
	 * no longer be read (a target dead within milliseconds of a burst of
	 * opens, or while its 20,000 fds were being read), so it is also read
	 * before, and the sets once more when one was left unnamed. */
	read_sent(c);
	coll_k_held_sets(&c->k, &h);
	e = ooms_held_snapshot(&h, s);
	if (!e && read_sent(c) && unnamed) {
		ooms_snapshot_free(s);
		unnamed = 0;
		e = ooms_held_snapshot(&h, s);
		read_sent(c);
	}
	if (!e && !coll_target_ours(c)) {
		/* its PID is another process's now: names from the sets and the
		 * last sample only, nothing from that process's /proc */
		ooms_snapshot_free(s);
		h.pid = 0;
		e = ooms_held_snapshot(&h, s);
	}
	if (!e) {
		s->t = coll_since(c);
		s->thread_limit = c->last_smp.res[RES_THREADS].limit;
		s->fd_limit = c->last_smp.res[RES_FDS].limit;
	}
	return e;
}

void coll_check_drift(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp)
{
	struct { const char *what; int64_t proc, bpf; int *run; int fds; } d[] = {
		{"fds", smp->res[RES_FDS].value, smp->fds_bpf, &c->drift_fds, 1},
		{"threads", smp->res[RES_THREADS].value, smp->threads_bpf, &c->drift_threads, 0},
	};

	/* A call in flight can differ for one sample; two in a row is drift. */
	for (size_t i = 0; i < 2; i++) {
		if (d[i].proc == d[i].bpf) {
			*d[i].run = 0;
			continue;
		}
		if (++*d[i].run < 2)
			continue;
		*d[i].run = 0;
		/* the counts are of two moments: a target making and ending them
		 * fast differs between the two without the set being wrong; said
		 * only when members were */
		if (!coll_k_resync(&c->k, s, d[i].fds))
			continue;
		struct run_record r = {.type = REC_DRIFT, .u.drift = {smp->t, d[i].what, d[i].proc, d[i].bpf}};

		coll_emit(c, run_record_body, &r);
	}
}
