#define _GNU_SOURCE
#include "collector/kernel/set_snapshot.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "proc/procfs.h"
#include "util/vec.h"

/* The last sample's (or the attach's) entries by number, sorted, so each
 * lookup is a binary search: a dying process's 30,000 threads or 500,000
 * fds that /proc no longer shows are each looked up. */
struct by_num {
	int num;
	size_t i;
};

static int by_num_cmp(const void *a, const void *b)
{
	int x = ((const struct by_num *)a)->num, y = ((const struct by_num *)b)->num;

	return x < y ? -1 : x > y;
}

static struct by_num *index_last(const struct ooms_snapshot *last, int fds, size_t *n)
{
	struct by_num *ix;

	*n = last ? (fds ? last->nfds : last->nthreads) : 0;
	ix = *n ? malloc(*n * sizeof(*ix)) : NULL;
	if (!ix) {
		*n = 0;
		return NULL;
	}
	for (size_t i = 0; i < *n; i++)
		ix[i] = (struct by_num){fds ? last->fds[i].fd : last->threads[i].tid, i};
	qsort(ix, *n, sizeof(*ix), by_num_cmp);
	return ix;
}

/* The index into last of number num, or -1. */
static long find_last(const struct by_num *ix, size_t n, int num)
{
	struct by_num key = {num, 0}, *hit = ix ? bsearch(&key, ix, n, sizeof(*ix), by_num_cmp) : NULL;

	return hit ? (long)hit->i : -1;
}

static int tid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The thread set's members, each once. Walked while threads come and go:
 * when the key last read is deleted meanwhile, the kernel starts the walk
 * again from the first key, so members come back (a pids cgroup of 100
 * once listed 155); hence sorted and deduplicated, the walk bounded. */
static int held_tids(int map_fd, uint32_t **tids, size_t *n)
{
	uint32_t key, next, *prev = NULL;
	size_t cap = 0, k = 0;

	*tids = NULL;
	*n = 0;
	for (size_t steps = 0; steps < (1u << 22) && bpf_map_get_next_key(map_fd, prev, &next) == 0; steps++) {
		uint32_t *t = VEC_PUSH(*tids, *n, cap);

		if (!t)
			return -ENOMEM;
		*t = next;
		key = next;
		prev = &key;
	}
	if (*n)
		qsort(*tids, *n, sizeof(**tids), tid_cmp);
	for (size_t i = 0; i < *n; i++)
		if (!k || (*tids)[k - 1] != (*tids)[i])
			(*tids)[k++] = (*tids)[i];
	*n = k;
	return 0;
}

static int held_threads(const struct ooms_held_sets *h, struct ooms_snapshot *s)
{
	size_t cap = 0, nix = 0, ntids;
	struct by_num *ix = NULL;
	uint32_t *tids;
	int indexed = 0;

	if (held_tids(h->threads_map_fd, &tids, &ntids)) {
		free(tids);
		return -ENOMEM;
	}
	for (size_t j = 0; j < ntids; j++) {
		uint32_t tid = tids[j];
		struct snap_thread *t;
		char comm[OOMS_COMM_LEN];
		const char *known;

		if (!(t = VEC_PUSH(s->threads, s->nthreads, cap))) {
			free(ix);
			free(tids);
			return -ENOMEM;
		}
		t->tid = (int)tid;
		/* the name it died with, else what /proc says, else the last sample's */
		if (h->names_map_fd >= 0 && bpf_map_lookup_elem(h->names_map_fd, &tid, comm) == 0) {
			snprintf(t->comm, sizeof(t->comm), "%.*s", (int)sizeof(comm), comm);
		} else if (proc_task_comm(h->pid, (int)tid, t->comm, sizeof(t->comm)) != 0) {
			long i;

			if (!indexed++)
				ix = index_last(h->last, 0, &nix);
			i = find_last(ix, nix, (int)tid);
			known = i >= 0 ? h->last->threads[i].comm : NULL;
			snprintf(t->comm, sizeof(t->comm), "%s", known ? known : "?");
		}
	}
	free(ix);
	free(tids);
	return 0;
}

static int held_fds(const struct ooms_held_sets *h, struct ooms_snapshot *s)
{
	size_t n = 0, k = 0, nix = 0;
	struct by_num *ix = NULL;
	int indexed = 0;

	for (size_t w = 0; w < h->fd_words; w++)
		n += (size_t)__builtin_popcountll(h->fd_bits[w]);
	if (!n)
		return 0;
	for (size_t w = 0; w < h->fd_words && k < n; w++) {
		uint64_t bits = h->fd_bits[w];

		while (bits && k < n) {
			int fd = (int)(w * 64) + __builtin_ctzll(bits);
			char target[256];

			bits &= bits - 1;
			k++;
			if (proc_fd_target(h->pid, fd, target, sizeof(target)) != 0 &&
			    !ooms_attrib_fd_guess(h->attrib, fd, target, sizeof(target))) {
				/* there since before attach: what the last sample (or
				 * the attach) saw under that number */
				long i;

				if (!indexed++)
					ix = index_last(h->last, 1, &nix);
				i = find_last(ix, nix, fd);
				snprintf(target, sizeof(target), "%s",
					 i >= 0 ? ooms_snap_fd_target(h->last, (size_t)i) : "?:[unknown]");
				if (i < 0 && h->unnamed)
					++*h->unnamed;
			}
			if (ooms_snapshot_add_fd(s, fd, target)) {
				free(ix);
				return -ENOMEM;
			}
		}
	}
	free(ix);
	return 0;
}

int ooms_held_snapshot(const struct ooms_held_sets *h, struct ooms_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	if (held_threads(h, s) || held_fds(h, s))
		goto fail;
	if (h->last) {
		if (h->last->nmaps) {
			s->maps = malloc(h->last->nmaps * sizeof(*s->maps));
			if (!s->maps)
				goto fail;
			memcpy(s->maps, h->last->maps, h->last->nmaps * sizeof(*s->maps));
			s->nmaps = h->last->nmaps;
		}
		s->maps_ns = h->last->maps_ns; /* the maps are that reading's */
		s->vmsize_kb = h->last->vmsize_kb;
		s->vmpeak_kb = h->last->vmpeak_kb;
		s->thread_limit = h->last->thread_limit;
		s->fd_limit = h->last->fd_limit;
	}
	s->alive = 1;
	return 0;
fail:
	ooms_snapshot_free(s);
	return -ENOMEM;
}
