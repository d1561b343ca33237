#define _GNU_SOURCE
#include "collector/held.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "proc/procfs.h"
#include "util/vec.h"

static const char *last_comm(const struct ooms_snapshot *last, int tid)
{
	for (size_t i = 0; last && i < last->nthreads; i++)
		if (last->threads[i].tid == tid)
			return last->threads[i].comm;
	return NULL;
}

/* An fd there since before attach: what the last sample (or the attach)
 * saw under that number. */
static void last_target(const struct ooms_snapshot *last, int fd, char *buf, size_t len)
{
	for (size_t i = 0; last && i < last->nfds; i++)
		if (last->fds[i].fd == fd) {
			snprintf(buf, len, "%s", last->fds[i].target);
			return;
		}
	snprintf(buf, len, "?:[unknown]");
}

static int held_threads(const struct ooms_held_sets *h, struct ooms_snapshot *s)
{
	uint32_t key, next, *prev = NULL;
	size_t cap = 0;

	while (bpf_map_get_next_key(h->threads_map_fd, prev, &next) == 0) {
		struct snap_thread *t;
		char comm[OOMS_COMM_LEN];
		const char *known;

		if (!(t = VEC_PUSH(s->threads, s->nthreads, cap)))
			return -ENOMEM;
		t->tid = (int)next;
		/* the name it died with, else what /proc says, else the last sample's */
		if (h->names_map_fd >= 0 && bpf_map_lookup_elem(h->names_map_fd, &next, comm) == 0) {
			snprintf(t->comm, sizeof(t->comm), "%.*s", (int)sizeof(comm), comm);
		} else if (proc_task_comm(h->pid, (int)next, t->comm, sizeof(t->comm)) != 0) {
			known = last_comm(h->last, (int)next);
			snprintf(t->comm, sizeof(t->comm), "%s", known ? known : "?");
		}
		key = next;
		prev = &key;
	}
	return 0;
}

static int held_fds(const struct ooms_held_sets *h, struct ooms_snapshot *s)
{
	size_t n = 0, k = 0;

	for (size_t w = 0; w < h->fd_words; w++)
		n += (size_t)__builtin_popcountll(h->fd_bits[w]);
	if (!n)
		return 0;
	s->fds = calloc(n, sizeof(*s->fds));
	if (!s->fds)
		return -ENOMEM;
	for (size_t w = 0; w < h->fd_words && k < n; w++) {
		uint64_t bits = h->fd_bits[w];

		while (bits && k < n) {
			int fd = (int)(w * 64) + __builtin_ctzll(bits);
			struct snap_fd *f = &s->fds[k++];

			bits &= bits - 1;
			f->fd = fd;
			if (proc_fd_target(h->pid, fd, f->target, sizeof(f->target)) != 0 &&
			    !ooms_attrib_fd_guess(h->attrib, fd, f->target, sizeof(f->target)))
				last_target(h->last, fd, f->target, sizeof(f->target));
		}
	}
	s->nfds = k;
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
