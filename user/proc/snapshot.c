/* Reading what /proc says is live: threads, fds, mappings, status. */
#define _GNU_SOURCE
#include "proc/snapshot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proc/maps.h"
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
	struct grow g;
	int is_fd;
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

	if (tick_fn && *c->g.n % 1024 == 1023)
		tick_fn(tick_ctx);

	if (c->is_fd) {
		struct snap_fd *f = grow_push(&c->g);

		if (!f)
			return;
		f->fd = (int)n;
		if (proc_fd_target(c->pid, (int)n, f->target, sizeof(f->target)) != 0)
			(*c->g.n)--; /* closed while we looked */
	} else {
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
	struct list_ctx tc = {pid, {(void **)&s->threads, &s->nthreads, 0, sizeof(struct snap_thread)}, 0};
	struct list_ctx fc = {pid, {(void **)&s->fds, &s->nfds, 0, sizeof(struct snap_fd)}, 1};
	struct proc_status st;
	int64_t r;

	memset(s, 0, sizeof(*s));
	r = proc_list(pid, "task", add_entry, &tc);
	if (r < 0)
		return (int)r;
	r = proc_list(pid, "fd", add_entry, &fc);
	if (r < 0)
		return (int)r;
	if (read_maps(pid, s) != 0 || proc_read_status(pid, &st) != 0)
		return -ESRCH;
	s->vmsize_kb = st.vmsize_kb;
	s->vmpeak_kb = st.vmpeak_kb;
	s->alive = 1;
	return 0;
}

void ooms_snapshot_free(struct ooms_snapshot *s)
{
	free(s->threads);
	free(s->fds);
	free(s->maps);
	memset(s, 0, sizeof(*s));
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
	if (!strncmp(target, "/dev/ashmem", 11))
		return "/dev/ashmem";
	if (!strncmp(target, "/memfd:", 7))
		return "memfd";
	if (!strncmp(target, "/dev/", 5)) {
		snprintf(buf, len, "%s", target);
		return buf;
	}
	if (target[0] == '/')
		return "file";
	/* net:[...], mnt:[...] and other namespaces */
	snprintf(buf, len, "%.*s", (int)strcspn(target, ":["), target);
	return buf;
}
