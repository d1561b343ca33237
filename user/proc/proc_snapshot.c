/* Reading what /proc says is live: threads, fds, mappings, status. */
#define _GNU_SOURCE
#include "proc/proc_snapshot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proc/maps.h"
#include "util/clock.h"
#include "proc/procfs.h"
#include "util/vec.h"

struct grow {
	void **arr;
	size_t *n, cap, elem;
};

static void *grow_push(struct grow *g)
{
	if (vec_reserve(g->arr, &g->cap, *g->n + 1, g->elem))
		return NULL;
	return (char *)*g->arr + (*g->n)++ * g->elem;
}

struct list_ctx {
	pid_t pid;
	struct grow g; /* threads */
	int is_fd;
	struct ooms_snapshot *s; /* fds */
};

static void (*tick_fn)(void *ctx);
static void *tick_ctx;

void ooms_snapshot_set_tick(void (*fn)(void *ctx), void *ctx)
{
	tick_fn = fn;
	tick_ctx = ctx;
}

static void add_entry(void *vctx, int64_t n)
{
	struct list_ctx *c = vctx;

	if (c->is_fd) {
		char target[256];

		if (tick_fn && c->s->nfds % 1024 == 1023)
			tick_fn(tick_ctx);
		/* not there: closed while we looked */
		if (proc_fd_target(c->pid, (int)n, target, sizeof(target)) == 0)
			ooms_snapshot_add_fd(c->s, (int)n, target);
	} else {
		if (tick_fn && *c->g.n % 1024 == 1023)
			tick_fn(tick_ctx);
		struct snap_thread *t = grow_push(&c->g);

		if (!t)
			return;
		t->tid = (int)n;
		if (proc_task_comm(c->pid, (int)n, t->comm, sizeof(t->comm)) != 0)
			(*c->g.n)--; /* exited while we looked */
	}
}

static int add_map(void *ctx, const struct proc_map_line *l)
{
	struct grow *g = ctx;
	struct snap_map *m = grow_push(g);

	if (!m)
		return -ENOMEM;
	m->start = l->start;
	m->end = l->end;
	snprintf(m->perms, sizeof(m->perms), "%.4s", l->perms);
	snprintf(m->path, sizeof(m->path), "%s", l->path);
	return 0;
}

static int read_maps(pid_t pid, struct ooms_snapshot *s)
{
	struct grow g = {(void **)&s->maps, &s->nmaps, 0, sizeof(struct snap_map)};

	return proc_maps_each(pid, add_map, &g);
}

int ooms_snapshot_take(pid_t pid, struct ooms_snapshot *s)
{
	struct list_ctx tc = {pid, {(void **)&s->threads, &s->nthreads, 0, sizeof(struct snap_thread)}, 0, s};
	struct list_ctx fc = {pid, {NULL, NULL, 0, 0}, 1, s};
	struct proc_status st;
	int64_t r;

	memset(s, 0, sizeof(*s));
	r = proc_list(pid, "task", add_entry, &tc);
	if (r < 0)
		return (int)r;
	r = proc_list(pid, "fd", add_entry, &fc);
	if (r < 0)
		return (int)r;
	s->maps_ns = mono_ns();
	if (read_maps(pid, s) != 0 || proc_read_status(pid, &st) != 0)
		return -ESRCH;
	s->vmsize_kb = st.vmsize_kb;
	s->vmpeak_kb = st.vmpeak_kb;
	s->alive = 1;
	return 0;
}

int ooms_snapshot_add_fd(struct ooms_snapshot *s, int fd, const char *target)
{
	size_t len = strlen(target) + 1;

	if (s->fd_text_len + len > UINT32_MAX ||
	    vec_reserve((void **)&s->fd_text, &s->fd_text_cap, s->fd_text_len + len, 1) ||
	    vec_reserve((void **)&s->fds, &s->fds_cap, s->nfds + 1, sizeof(*s->fds)))
		return -ENOMEM;
	memcpy(s->fd_text + s->fd_text_len, target, len);
	s->fds[s->nfds++] = (struct snap_fd){fd, (uint32_t)s->fd_text_len};
	s->fd_text_len += len;
	return 0;
}

void ooms_snapshot_free(struct ooms_snapshot *s)
{
	free(s->threads);
	free(s->fds);
	free(s->fd_text);
	free(s->maps);
	memset(s, 0, sizeof(*s));
}

#define KIND_ASHMEM "/dev/ashmem"
#define KIND_MEMFD "memfd"

int ooms_fd_kind_shared_memory(const char *kind)
{
	return !strcmp(kind, KIND_MEMFD) || !strcmp(kind, KIND_ASHMEM);
}

const char *ooms_fd_kind(const char *target, char *buf, size_t len)
{
	if (!strncmp(target, "socket:", 7))
		return "socket";
	if (!strncmp(target, "pipe:", 5))
		return "pipe";
	if (!strncmp(target, "anon_inode:", 11)) {
		snprintf(buf, len, "%s", target); /* anon_inode:[eventfd], anon_inode:[eventpoll], ... */
		return buf;
	}
	if (!strncmp(target, KIND_ASHMEM, strlen(KIND_ASHMEM)))
		return KIND_ASHMEM;
	if (!strncmp(target, "/memfd:", 7))
		return KIND_MEMFD;
	if (!strncmp(target, "/dev/", 5)) {
		snprintf(buf, len, "%s", target);
		return buf;
	}
	/* net:[...], mnt:[...] and other namespaces: a word before ":[" */
	size_t w = strspn(target, "abcdefghijklmnopqrstuvwxyz_");

	if (target[0] != '/' && w && !strncmp(target + w, ":[", 2)) {
		snprintf(buf, len, "%.*s", (int)w, target);
		return buf;
	}
	/* an absolute path, or the path an open was given when /proc could not
	 * be read (relative to the opener's directory: stress-ng's files) */
	return "file";
}

/* Cuts [lo, hi) out of s's maps (splitting one that holds it). */
static int cut(struct ooms_snapshot *s, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < s->nmaps; i++) {
		struct snap_map *m = &s->maps[i];

		if (m->end <= lo || m->start >= hi)
			continue;
		if (m->start < lo && m->end > hi) { /* a hole in the middle: two pieces */
			struct snap_map *g = realloc(s->maps, (s->nmaps + 1) * sizeof(*g));

			if (!g)
				return -ENOMEM;
			s->maps = g;
			m = &s->maps[i];
			s->maps[s->nmaps] = *m;
			s->maps[s->nmaps].start = hi;
			s->nmaps++;
			m->end = lo;
		} else if (m->start < lo) {
			m->end = lo;
		} else if (m->end > hi) {
			m->start = hi;
		} else { /* all of it */
			s->maps[i--] = s->maps[--s->nmaps];
		}
	}
	return 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct snap_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int anon_rw(const struct snap_map *m)
{
	return !m->path[0] && !strcmp(m->perms, "rw-p");
}

int ooms_snapshot_replay_maps(struct ooms_snapshot *s, const struct map_change *ch, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct map_change *c = &ch[k];
		struct snap_map *g;

		if (c->ts_ns < s->maps_ns || !c->len)
			continue;
		if (cut(s, c->addr, c->addr + c->len))
			return -ENOMEM;
		s->maps_replayed++;
		if (c->unmap)
			continue;
		if (!(g = realloc(s->maps, (s->nmaps + 1) * sizeof(*g))))
			return -ENOMEM;
		s->maps = g;
		memset(&s->maps[s->nmaps], 0, sizeof(*g));
		s->maps[s->nmaps].start = c->addr;
		s->maps[s->nmaps].end = c->addr + c->len;
		snprintf(s->maps[s->nmaps].perms, sizeof(s->maps[0].perms), "rw-p");
		s->nmaps++;
	}
	/* in address order, anonymous read-write neighbours joined, as the kernel joins them */
	vec_sort(s->maps, s->nmaps, sizeof(*s->maps), map_cmp);
	for (size_t i = 1; i < s->nmaps;) {
		struct snap_map *a = &s->maps[i - 1], *b = &s->maps[i];

		if (a->end == b->start && anon_rw(a) && anon_rw(b)) {
			a->end = b->end;
			memmove(b, b + 1, (s->nmaps - i - 1) * sizeof(*b));
			s->nmaps--;
		} else {
			i++;
		}
	}
	return 0;
}
