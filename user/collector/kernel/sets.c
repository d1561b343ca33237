/* The kernel side's fd and thread sets: seeded from /proc at attach, made
 * right when a sample finds them drifted, and their places given for a
 * reading of them (set_snapshot.c). */
#define _GNU_SOURCE
#include "collector/kernel/kernel_side.h"
#include "collector/console/console.h"
#include "collect.skel.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proc/procfs.h"
#include "util/vec.h"

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
int64_t coll_k_sync_fd_bits(struct coll_kernel *ks, const struct ooms_snapshot *s, int add_only, int64_t *corrected)
{
	uint64_t *want = calloc(ks->fd_words, 8);
	int64_t delta = 0, fixed = 0;

	if (!want)
		return 0;
	for (size_t i = 0; i < s->nfds; i++) {
		if ((size_t)s->fds[i].fd / 64 < ks->fd_words)
			want[s->fds[i].fd / 64] |= 1ull << (s->fds[i].fd % 64);
	}
	for (size_t w = 0; w < ks->fd_words; w++) {
		uint64_t have = __atomic_load_n(&ks->fd_bits[w], __ATOMIC_SEQ_CST);
		uint64_t set = want[w] & ~have, clear = add_only ? 0 : have & ~want[w];

		if (set) {
			uint64_t added = set & ~__atomic_fetch_or(&ks->fd_bits[w], set, __ATOMIC_SEQ_CST);

			for (uint64_t b = added; b; b &= b - 1) {
				uint64_t m = 1ull << __builtin_ctzll(b);

				/* cleared here: not counted; by the kernel side's close: counted there */
				if (!proc_entry_exists(ks->pid, "fd", (int64_t)(w * 64 + (size_t)__builtin_ctzll(b))) &&
				    (__atomic_fetch_and(&ks->fd_bits[w], ~m, __ATOMIC_SEQ_CST) & m))
					added &= ~m;
			}
			delta += __builtin_popcountll(added);
			fixed += __builtin_popcountll(added);
		}
		for (uint64_t b = clear; b; b &= b - 1) {
			int bit = __builtin_ctzll(b);

			if (proc_entry_exists(ks->pid, "fd", (int64_t)(w * 64 + (size_t)bit)))
				clear &= ~(1ull << bit);
		}
		if (clear) {
			int removed = __builtin_popcountll(clear & __atomic_fetch_and(&ks->fd_bits[w], ~clear, __ATOMIC_SEQ_CST));

			delta -= removed;
			fixed += removed;
		}
	}
	free(want);
	if (corrected)
		*corrected = fixed;
	return delta;
}

int64_t coll_k_resync(struct coll_kernel *ks, const struct ooms_snapshot *s, int fds)
{
	int64_t corrected = 0;
	int *keys;

	if (fds) {
		__atomic_fetch_add(&coll_k_totals(ks)->fds_live, coll_k_sync_fd_bits(ks, s, 0, &corrected), __ATOMIC_SEQ_CST);
		return corrected;
	}
	keys = coll_snapshot_keys(s, 0);
	if (!keys)
		return 0;
	__atomic_fetch_add(&coll_k_totals(ks)->threads_live,
			   resync_set(ks->pid, bpf_map__fd(ks->skel->maps.live_threads), keys, s->nthreads, &corrected),
			   __ATOMIC_SEQ_CST);
	free(keys);
	return corrected;
}

void coll_k_held_sets(struct coll_kernel *ks, struct ooms_held_sets *h)
{
	h->pid = ks->pid;
	h->fd_bits = ks->fd_bits;
	h->fd_words = ks->fd_words;
	h->threads_map_fd = bpf_map__fd(ks->skel->maps.live_threads);
	h->names_map_fd = bpf_map__fd(ks->skel->maps.dying_names);
}
