#define _GNU_SOURCE
#include "collector/attrib_int.h"
#include "util/vec.h"

struct ooms_attrib *ooms_attrib_new(pid_t pid, enum ooms_arch arch, struct ooms_symbolizer *sym)
{
	struct ooms_attrib *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->pid = pid;
	a->arch = arch;
	a->sym = sym;
	a->fix = ooms_stackfix_new(sym);
	a->stacks = ooms_stacks_new();
	a->nthread_slots = 1024;
	a->threads = calloc(a->nthread_slots, sizeof(*a->threads));
	a->maps = calloc(MAX_BIG_MAPS, sizeof(*a->maps));
	if (!a->fix || !a->stacks || !a->threads || !a->maps) {
		ooms_attrib_free(a);
		return NULL;
	}
	return a;
}

void ooms_attrib_free(struct ooms_attrib *a)
{
	if (!a)
		return;
	ooms_stackfix_free(a->fix);
	ooms_stacks_free(a->stacks);
	free(a->fds);
	for (size_t i = 0; a->threads && i < a->nthread_slots; i++)
		free(a->threads[i].java_name);
	free(a->threads);
	free(a->maps);
	free(a);
}

uint64_t ooms_attrib_events(const struct ooms_attrib *a)
{
	return a->events;
}

struct origin *attrib_fd_origin(struct ooms_attrib *a, int64_t fd)
{
	if (fd < 0 || fd > (1 << 24))
		return NULL;
	if ((size_t)fd >= a->nfds) {
		size_t old = a->nfds;

		if (vec_reserve((void **)&a->fds, &a->nfds, (size_t)fd + 1, sizeof(*a->fds)))
			return NULL;
		memset(a->fds + old, 0, (a->nfds - old) * sizeof(*a->fds));
	}
	return &a->fds[fd];
}


static int threads_grow(struct ooms_attrib *a)
{
	struct thread_slot *old = a->threads;
	size_t n = a->nthread_slots;

	a->threads = calloc(n * 2, sizeof(*a->threads));
	if (!a->threads) {
		a->threads = old;
		return -1;
	}
	a->nthread_slots = n * 2;
	a->nthreads = 0;
	for (size_t i = 0; i < n; i++)
		if (old[i].tid) {
			struct thread_slot *t = attrib_thread_find(a, old[i].tid, 1);

			t->o = old[i].o;
			t->java_name = old[i].java_name;
		}
	free(old);
	return 0;
}

struct thread_slot *attrib_thread_find(struct ooms_attrib *a, uint32_t tid, int create)
{
	size_t mask = a->nthread_slots - 1, j = (tid * 2654435761u) & mask;

	for (; a->threads[j].tid; j = (j + 1) & mask)
		if (a->threads[j].tid == tid)
			return &a->threads[j];
	if (!create)
		return NULL;
	if ((a->nthreads + 1) * 2 > a->nthread_slots && threads_grow(a) == 0)
		return attrib_thread_find(a, tid, 1);
	a->threads[j].tid = tid;
	a->nthreads++;
	return &a->threads[j];
}

static uint32_t stack_of(struct ooms_attrib *a, const struct ooms_event *e, const uint64_t *slice, size_t nslice,
			 unsigned depth, int scan);

static void fill_origin(struct ooms_attrib *a, struct origin *o, const struct ooms_event *e)
{
	o->stack = stack_of(a, e, NULL, 0, 0, 0);
	o->tid = e->tid;
	o->nr = e->nr;
	o->start = 0;
	o->ts_ns = e->ts_ns;
	memcpy(o->comm, e->comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = 0;
	o->seen = 1;
}

void ooms_attrib_event(struct ooms_attrib *a, const struct ooms_event *e)
{
	struct origin *o;

	if (e->version != OOMS_EVENT_VERSION)
		return;
	a->events++;
	switch (e->type) {
	case EV_FD_OPEN:
		if ((o = attrib_fd_origin(a, e->ret)))
			fill_origin(a, o, e);
		if ((int64_t)e->arg0 >= 0 && (o = attrib_fd_origin(a, (int64_t)e->arg0)))
			fill_origin(a, o, e);
		break;
	case EV_THREAD_NEW: {
		struct thread_slot *t = attrib_thread_find(a, (uint32_t)e->ret, 1);

		fill_origin(a, &t->o, e);
		t->o.start = e->arg1;
		break;
	}
	case EV_MMAP_BIG: {
		/* keep the newest; the oldest are the likeliest to be unmapped */
		if (a->nmaps == MAX_BIG_MAPS) {
			memmove(a->maps, a->maps + 1, (MAX_BIG_MAPS - 1) * sizeof(*a->maps));
			a->nmaps--;
		}
		a->maps[a->nmaps].addr = (uint64_t)e->ret;
		a->maps[a->nmaps].len = e->arg0;
		fill_origin(a, &a->maps[a->nmaps].o, e);
		a->nmaps++;
		break;
	}
	}
}

const char *ooms_attrib_fd_guess(struct ooms_attrib *a, int fd, char *buf, size_t len)
{
	static const struct {
		const char *prefix, *target;
	} kinds[] = {
		{"socket", "socket:[?]"}, {"accept", "socket:[?]"}, {"pipe", "pipe:[?]"},
		{"eventfd", "anon_inode:[eventfd]"}, {"epoll", "anon_inode:[eventpoll]"},
		{"timerfd", "anon_inode:[timerfd]"}, {"signalfd", "anon_inode:[signalfd]"},
		{"inotify", "anon_inode:inotify"}, {"memfd", "/memfd:? (deleted)"},
		{"pidfd", "anon_inode:[pidfd]"}, {"io_uring", "anon_inode:[io_uring]"},
	};
	struct origin *o = fd >= 0 && (size_t)fd < a->nfds ? &a->fds[fd] : NULL;
	const char *call;

	if (!o || o->seen != 1)
		return NULL;
	call = ooms_syscall_name(a->arch, o->nr);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(call, kinds[i].prefix, strlen(kinds[i].prefix))) {
			snprintf(buf, len, "%s", kinds[i].target);
			return buf;
		}
	if (strstr(call, "open") || !strcmp(call, "creat"))
		snprintf(buf, len, "/? (opened by %s; gone before its path could be read)", call);
	else
		snprintf(buf, len, "?:[%s]", call); /* dup, fcntl: the kind of what was duplicated */
	return buf;
}

void ooms_attrib_thread_name(struct ooms_attrib *a, uint32_t tid, const char *name)
{
	struct thread_slot *t = attrib_thread_find(a, tid, 1);
	char *copy = name && *name ? strdup(name) : NULL;

	free(t->java_name);
	t->java_name = copy;
}

void ooms_attrib_mark_preexisting(struct ooms_attrib *a, const struct ooms_snapshot *s)
{
	struct origin *o;

	for (size_t i = 0; i < s->nfds; i++)
		if ((o = attrib_fd_origin(a, s->fds[i].fd)) && !o->seen)
			o->seen = 2;
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread_slot *t = attrib_thread_find(a, s->threads[i].tid, 1);

		if (!t->o.seen)
			t->o.seen = 2;
	}
}

uint32_t ooms_attrib_stack(struct ooms_attrib *a, const struct ooms_event *e, const uint64_t *slice,
			   size_t nslice, unsigned depth)
{
	return stack_of(a, e, slice, nslice, depth, 0);
}

uint32_t ooms_attrib_stack_scan(struct ooms_attrib *a, const struct ooms_event *e, const uint64_t *slice,
				size_t nslice)
{
	return stack_of(a, e, slice, nslice, 0, 1);
}

static uint32_t stack_of(struct ooms_attrib *a, const struct ooms_event *e, const uint64_t *slice, size_t nslice,
			 unsigned depth, int scan)
{
	uint64_t frames[MAX_FRAMES];
	size_t n = e->stack_bytes > 0 ? (size_t)e->stack_bytes / 8 : 0;

	if (n > OOMS_STACK_DEPTH)
		n = OOMS_STACK_DEPTH;
	if (!slice) {
		slice = e->slice;
		nslice = OOMS_SLICE_WORDS;
	}
	if (e->nr >= OOMS_COMPAT_BASE)
		n = ooms_stackfix_repair_a32(a->fix, e->ustack, n, e->lr, frames, MAX_FRAMES);
	else
		n = (scan ? ooms_stackfix_repair_scan : ooms_stackfix_repair)(a->fix, e->ustack, n, e->sp, e->lr,
									      slice, nslice, frames, MAX_FRAMES);
	if (depth && n > depth)
		n = depth;
	return ooms_stacks_intern(a->stacks, frames, n);
}
