/* The kernel side's fd and thread sets: seeded from /proc at attach, compared
 * with it every sample (drift) and repaired, and read back as snapshots. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "run/timeline.h"
#include "util/vec.h"
#include "run/records.h"

/* Adds what /proc listed to a BPF set; returns how many were new. A
 * thread gone or exiting once added (its exit, seen before the add, found
 * nothing to remove; /proc lists a thread until it is reaped, after its
 * exit was seen) is taken out again; one whose exit comes after the check
 * is removed by the kernel side. pid 0: no check. */
int64_t coll_seed_set(pid_t pid, int map_fd, const int *keys, size_t n)
{
	uint8_t one = 1;
	int64_t added = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t k = keys[i];

		if (bpf_map_update_elem(map_fd, &k, &one, BPF_NOEXIST) != 0)
			continue;
		if (pid && !proc_task_live(pid, (int)k))
			bpf_map_delete_elem(map_fd, &k);
		else
			added++;
	}
	return added;
}

static int key_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Makes a BPF set equal to what /proc lists (keys: sorted here) as of now:
 * the listing is a moment ago, and a target making and ending threads by the
 * hundred a second has changed since, so a member only in the set is
 * removed if it is gone now, and one only in the listing added if it is
 * still there (coll_seed_set). Returns the change in members, *corrected
 * the members added or removed. Each member
 * is looked up by binary search: 30,000 threads against 30,000 is not 900
 * million comparisons. */
static int64_t resync_set(pid_t pid, int map_fd, int *keys, size_t n, int64_t *corrected)
{
	uint32_t k, next, *stale = NULL;
	size_t nstale = 0, cap = 0;
	int64_t delta = coll_seed_set(pid, map_fd, keys, n);

	*corrected = delta;
	int more = bpf_map_get_next_key(map_fd, NULL, &next) == 0;

	qsort(keys, n, sizeof(*keys), key_cmp);
	while (more) {
		k = next;
		more = bpf_map_get_next_key(map_fd, &k, &next) == 0;
		if (bsearch(&k, keys, n, sizeof(*keys), key_cmp) || proc_entry_exists(pid, "task", k))
			continue;
		if (vec_reserve((void **)&stale, &cap, nstale + 1, sizeof(*stale)))
			break;
		stale[nstale++] = k;
	}
	for (size_t i = 0; i < nstale; i++)
		if (bpf_map_delete_elem(map_fd, &stale[i]) == 0) {
			delta--;
			++*corrected;
		}
	free(stale);
	return delta;
}

int *coll_snapshot_keys(const struct ooms_snapshot *s, int fds)
{
	size_t n = fds ? s->nfds : s->nthreads;
	int *k = malloc((n + 1) * sizeof(*k));

	for (size_t i = 0; k && i < n; i++)
		k[i] = fds ? s->fds[i].fd : s->threads[i].tid;
	return k;
}

/* Makes the fd bitmap equal to /proc's list as of now (add_only: only set
 * bits, for seeding), as resync_set does the thread set: an fd listed and
 * closed since is cleared again, one not listed cleared only if it is not
 * open now. Returns the change in members, *corrected (when not NULL) the
 * members set or cleared. */
int64_t coll_sync_fd_bits(struct coll *c, const struct ooms_snapshot *s, int add_only, int64_t *corrected)
{
	uint64_t *want = calloc(c->fd_words, 8);
	int64_t delta = 0, fixed = 0;

	if (!want)
		return 0;
	for (size_t i = 0; i < s->nfds; i++) {
		if ((size_t)s->fds[i].fd / 64 < c->fd_words)
			want[s->fds[i].fd / 64] |= 1ull << (s->fds[i].fd % 64);
	}
	for (size_t w = 0; w < c->fd_words; w++) {
		uint64_t have = __atomic_load_n(&c->fd_bits[w], __ATOMIC_SEQ_CST);
		uint64_t set = want[w] & ~have, clear = add_only ? 0 : have & ~want[w];

		if (set) {
			uint64_t added = set & ~__atomic_fetch_or(&c->fd_bits[w], set, __ATOMIC_SEQ_CST);

			for (uint64_t b = added; b; b &= b - 1) {
				uint64_t m = 1ull << __builtin_ctzll(b);

				/* cleared here: not counted; by the kernel side's close: counted there */
				if (!proc_entry_exists(c->pid, "fd", (int64_t)(w * 64 + (size_t)__builtin_ctzll(b))) &&
				    (__atomic_fetch_and(&c->fd_bits[w], ~m, __ATOMIC_SEQ_CST) & m))
					added &= ~m;
			}
			delta += __builtin_popcountll(added);
			fixed += __builtin_popcountll(added);
		}
		for (uint64_t b = clear; b; b &= b - 1) {
			int bit = __builtin_ctzll(b);

			if (proc_entry_exists(c->pid, "fd", (int64_t)(w * 64 + (size_t)bit)))
				clear &= ~(1ull << bit);
		}
		if (clear) {
			int removed = __builtin_popcountll(clear & __atomic_fetch_and(&c->fd_bits[w], ~clear, __ATOMIC_SEQ_CST));

			delta -= removed;
			fixed += removed;
		}
	}
	free(want);
	if (corrected)
		*corrected = fixed;
	return delta;
}

/* The set made right (as of now); how many members were wrong. */
static int64_t resync(struct coll *c, const struct ooms_snapshot *s, int fds)
{
	int64_t corrected = 0;
	int *keys;

	if (fds) {
		__atomic_fetch_add(&coll_totals(c)->fds_live, coll_sync_fd_bits(c, s, 0, &corrected), __ATOMIC_SEQ_CST);
		return corrected;
	}
	keys = coll_snapshot_keys(s, 0);
	if (!keys)
		return 0;
	__atomic_fetch_add(&coll_totals(c)->threads_live,
			   resync_set(c->pid, bpf_map__fd(c->skel->maps.live_threads), keys, s->nthreads, &corrected),
			   __ATOMIC_SEQ_CST);
	free(keys);
	return corrected;
}

/* The sets as the kernel side holds them now (see held.h). 0 or -errno. */
int coll_held_snapshot(struct coll *c, struct ooms_snapshot *s)
{
	struct ooms_held_sets h = {
		.pid = c->pid,
		.fd_bits = c->fd_bits,
		.fd_words = c->fd_words,
		.threads_map_fd = bpf_map__fd(c->skel->maps.live_threads),
		.names_map_fd = bpf_map__fd(c->skel->maps.dying_names),
		.attrib = c->attrib,
		.last = &c->last,
	};
	int e = ooms_held_snapshot(&h, s);

	/* A thread or fd in the sets just read may have its creation event
	 * still in the ring buffer (the kernel adds to the set, then sends):
	 * names are given when the snapshot is written, so read what was sent
	 * up to now first (bounded: 10 ms; not from inside a ring callback) */
	if (!e) {
		uint64_t sent = coll_totals(c)->events_sent;

		for (int i = 0; i < 10 && coll_read_ring(c) == 0 && ooms_attrib_events(c->attrib) < sent; i++)
			usleep(1000);
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
		if (!resync(c, s, d[i].fds))
			continue;
		struct run_record r = {.type = REC_DRIFT, .u.drift = {smp->t, d[i].what, d[i].proc, d[i].bpf}};

		coll_emit(c, run_record_body, &r);
	}
}
