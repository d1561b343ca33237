#define _GNU_SOURCE
#include <sys/uio.h>
#include "collector/attrib/attrib_int.h"
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
	for (size_t i = 0; a->fds && i < a->nfds; i++)
		free(a->fds[i].path);
	free(a->fds);
	for (size_t i = 0; a->threads && i < a->nthread_slots; i++)
		free(a->threads[i].java_name);
	free(a->threads);
	free(a->maps);
	for (size_t i = 1; i < a->njstacks; i++)
		free(a->jstacks[i]);
	free(a->jstacks);
	free(a->jp);
	free(a->jf);
	free(a->direct);
	free(a->faults);
	free(a);
}

/* ---- Java stacks: asked in an event, reported by the shim, in either order ---- */

static uint32_t jstack_intern(struct ooms_attrib *a, const char *frames)
{
	char **slot;

	for (size_t i = 1; i < a->njstacks; i++)
		if (!strcmp(a->jstacks[i], frames))
			return (uint32_t)i;
	if (!a->njstacks) { /* [0]: none */
		if (!(slot = VEC_PUSH(a->jstacks, a->njstacks, a->jstacks_cap)))
			return 0;
		*slot = NULL;
	}
	if (!(slot = VEC_PUSH(a->jstacks, a->njstacks, a->jstacks_cap)))
		return 0;
	if (!(*slot = strdup(frames))) {
		a->njstacks--;
		return 0;
	}
	return (uint32_t)(a->njstacks - 1);
}

static void java_set(struct origin *o, uint64_t ts_ns, uint32_t jstack)
{
	if (o && o->ts_ns == ts_ns && o->jstate == JS_ASKED) {
		o->jstate = jstack ? JS_GOT : JS_NO_JAVA;
		o->jstack = jstack;
	}
}

/* The report for the event p: on what that event made, if it still stands. */
static void java_apply(struct ooms_attrib *a, const struct jpend *p, uint32_t jstack)
{
	struct thread_slot *t;

	switch (p->type) {
	case EV_FD_OPEN:
		java_set(attrib_fd_origin(a, p->key), p->ts_ns, jstack);
		if (p->key2 >= 0)
			java_set(attrib_fd_origin(a, p->key2), p->ts_ns, jstack);
		break;
	case EV_THREAD_NEW:
		if ((t = attrib_thread_find(a, (uint32_t)p->key, 0)))
			java_set(&t->o, p->ts_ns, jstack);
		break;
	case EV_MMAP_BIG:
		for (size_t i = a->nmaps; i-- > 0;)
			if (a->maps[i].addr == (uint64_t)p->key)
				java_set(&a->maps[i].o, p->ts_ns, jstack);
		break;
	case EV_DIRECT_ALLOC: {
		struct direct_block *b = attrib_direct_find(a, (uint64_t)p->key);

		if (b)
			java_set(&b->o, p->ts_ns, jstack);
		break;
	}
	case EV_CALL_FAIL:
		for (size_t i = a->njf; i-- > 0;)
			if (a->jf[i].tid == p->tid && a->jf[i].ts_ns == p->ts_ns && a->jf[i].jstate == JS_ASKED) {
				a->jf[i].jstate = jstack ? JS_GOT : JS_NO_JAVA;
				a->jf[i].jstack = jstack;
			}
		break;
	}
}

static void jfail_push(struct ooms_attrib *a, const struct ooms_event *e)
{
	if (!a->jf && !(a->jf = calloc(MAX_JFAIL, sizeof(*a->jf))))
		return;
	if (a->njf == MAX_JFAIL) {
		memmove(a->jf, a->jf + 1, (MAX_JFAIL - 1) * sizeof(*a->jf));
		a->njf--;
	}
	a->jf[a->njf++] = (struct jfail){e->tid, e->ts_ns,
		e->java_pc ? JS_ASKED : e->java_sp == OOMS_JAVA_SAMPLED_OUT ? JS_SAMPLED : JS_NONE, 0};
}

int ooms_attrib_java_of_call(const struct ooms_attrib *a, uint32_t tid, uint64_t ts_ns, uint32_t *jstack)
{
	for (size_t i = a->njf; i-- > 0;)
		if (a->jf[i].tid == tid && a->jf[i].ts_ns == ts_ns) {
			*jstack = a->jf[i].jstack;
			return a->jf[i].jstate;
		}
	*jstack = 0;
	return JS_NONE;
}

static void jp_remove(struct ooms_attrib *a, size_t i)
{
	memmove(a->jp + i, a->jp + i + 1, (a->njp - i - 1) * sizeof(*a->jp));
	a->njp--;
}

/* The oldest entry for tid at sp, pc that is an ask (want_ask) or a report. */
static ssize_t jp_find(struct ooms_attrib *a, uint32_t tid, uint64_t sp, uint64_t pc, int want_ask)
{
	for (size_t i = 0; i < a->njp; i++)
		if (a->jp[i].tid == tid && a->jp[i].sp == sp && a->jp[i].pc == pc && (a->jp[i].type != 0) == want_ask)
			return (ssize_t)i;
	return -1;
}

static void jp_push(struct ooms_attrib *a, const struct jpend *p)
{
	if (!a->jp && !(a->jp = calloc(MAX_JPEND, sizeof(*a->jp))))
		return;
	if (a->njp == MAX_JPEND) { /* the oldest never matched */
		jp_remove(a, 0);
		a->java_unmatched++;
	}
	a->jp[a->njp++] = *p;
}

/* Asked from a return probe (EV_DIRECT_ALLOC): on x86_64 the kernel
 * returns through its uretprobe trampoline, which holds three words on the
 * stack, so the handler sees the trampoline's pc and an sp a little lower
 * than the probe saw. */
static int near_below(uint64_t report_sp, uint64_t ask_sp)
{
	return report_sp <= ask_sp && ask_sp - report_sp <= 64;
}

static void java_asked(struct ooms_attrib *a, const struct ooms_event *e, int64_t key, int64_t key2)
{
	struct jpend p = {e->tid, e->java_sp, e->java_pc, e->ts_ns, e->type, key, key2, 0};

	ssize_t r = jp_find(a, e->tid, e->java_sp, e->java_pc, 0);

	for (size_t k = 0; r < 0 && e->type == EV_DIRECT_ALLOC && k < a->njp; k++)
		if (a->jp[k].tid == e->tid && !a->jp[k].type && near_below(a->jp[k].sp, e->java_sp))
			r = (ssize_t)k;
	if (r >= 0) { /* the report came first */
		uint32_t js = a->jp[r].jstack;

		jp_remove(a, (size_t)r);
		java_apply(a, &p, js);
		return;
	}
	jp_push(a, &p);
}

void ooms_attrib_java_report(struct ooms_attrib *a, uint32_t tid, uint64_t sp, uint64_t pc, const char *frames)
{
	uint32_t js = frames && *frames ? jstack_intern(a, frames) : 0;
	ssize_t i = jp_find(a, tid, sp, pc, 1);

	/* pthread_create blocks signals across its clone: the one asked at the
	 * thread's start (or its failed clone) comes where it unblocks them, at
	 * another pc and sp; the thread's oldest such ask is its */
	for (size_t k = 0; i < 0 && k < a->njp; k++)
		if (a->jp[k].tid == tid &&
		    (a->jp[k].type == EV_THREAD_NEW || a->jp[k].type == EV_CALL_FAIL ||
		     (a->jp[k].type == EV_DIRECT_ALLOC && near_below(sp, a->jp[k].sp))))
			i = (ssize_t)k;
	if (i >= 0) {
		struct jpend p = a->jp[i];

		jp_remove(a, (size_t)i);
		java_apply(a, &p, js);
		return;
	}
	jp_push(a, &(struct jpend){tid, sp, pc, 0, 0, 0, 0, js});
}

int ooms_attrib_java_thread_started(struct ooms_attrib *a, uint32_t tid, const char *frames)
{
	struct thread_slot *t = attrib_thread_find(a, tid, 0);

	/* a thread whose own ask is answered (or pending) keeps that answer */
	if (!t || t->o.jstate != JS_NONE || !frames || !*frames)
		return 0;
	if (!(t->o.jstack = jstack_intern(a, frames)))
		return 0;
	t->o.jstate = JS_GOT;
	return 1;
}

int ooms_attrib_java_fd_opened(struct ooms_attrib *a, int64_t fd, uint32_t tid, uint64_t ns, const char *frames)
{
	struct origin *o = fd >= 0 && (size_t)fd < a->nfds ? &a->fds[fd] : NULL;
	uint32_t js;

	/* the open this kernel saw, by the same thread, returning just before
	 * the shim's clock read: not an older fd of that number */
	if (!o || o->seen != 1 || o->jstate != JS_NONE || o->tid != tid || ns < o->ts_ns ||
	    ns - o->ts_ns > OOMS_JAVA_FD_MATCH_NS || !frames || !*frames)
		return 0;
	if (!(js = jstack_intern(a, frames)))
		return 0;
	o->jstate = JS_GOT;
	o->jstack = js;
	return 1;
}

size_t ooms_attrib_java_pending(const struct ooms_attrib *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->njp; i++)
		n += a->jp[i].type != 0;
	return n;
}

size_t ooms_attrib_java_pending_until(const struct ooms_attrib *a, uint64_t until_ns)
{
	size_t n = 0;

	for (size_t i = 0; i < a->njp; i++)
		n += a->jp[i].type != 0 && a->jp[i].ts_ns <= until_ns;
	return n;
}

void ooms_attrib_java_runtime(struct ooms_attrib *a, int kind)
{
	a->java_runtime = kind;
}

uint64_t ooms_attrib_java_unmatched(const struct ooms_attrib *a)
{
	return a->java_unmatched + ooms_attrib_java_pending(a);
}

void ooms_attrib_java_platform(struct ooms_attrib *a, const char *const *prefixes, int keep_default)
{
	a->platform = prefixes;
	a->platform_add = keep_default;
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

void attrib_fill_origin(struct ooms_attrib *a, struct origin *o, const struct ooms_event *e)
{
	o->stack = stack_of(a, e, NULL, 0, 0, 0);
	o->tid = e->tid;
	o->nr = e->nr;
	o->start = 0;
	o->ts_ns = e->ts_ns;
	memcpy(o->comm, e->comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = 0;
	o->seen = 1;
	o->jstate = e->java_pc ? JS_ASKED : e->java_sp == OOMS_JAVA_SAMPLED_OUT ? JS_SAMPLED : JS_NONE;
	o->jstack = 0;
}

/* A socket's family and type from its event (OOMS_SOCKET_TAG | domain << 32 | type). */
static const char *socket_desc(uint64_t arg1, char *buf, size_t len)
{
	static const struct { unsigned v; const char *name; } families[] = {
		{1, "AF_UNIX"}, {2, "AF_INET"}, {10, "AF_INET6"}, {16, "AF_NETLINK"}, {17, "AF_PACKET"}, {40, "AF_VSOCK"},
	}, types[] = {{1, "SOCK_STREAM"}, {2, "SOCK_DGRAM"}, {3, "SOCK_RAW"}, {5, "SOCK_SEQPACKET"}};
	unsigned fam = (unsigned)(arg1 >> 32) & 0xffff, type = (unsigned)arg1 & 0xf;
	const char *f = NULL, *t = NULL;
	char fb[16], tb[16];

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i].v == fam)
			f = families[i].name;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].v == type)
			t = types[i].name;
	if (!f)
		snprintf(fb, sizeof(fb), "AF_%u", fam), f = fb;
	if (!t)
		snprintf(tb, sizeof(tb), "SOCK_%u", type), t = tb;
	snprintf(buf, len, "%s %s", f, t);
	return buf;
}

/* A path the kernel side could not read (its page was not present then):
 * read from the target's memory now, while it lives; NULL when it cannot be. */
static char *path_from_memory(pid_t pid, uint64_t at)
{
	char buf[OOMS_PATH_LEN + 1];
	struct iovec local = {buf, OOMS_PATH_LEN}, remote = {(void *)(uintptr_t)at, OOMS_PATH_LEN};
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n <= 0) { /* the string may end before a page that is not mapped: a byte at a time */
		for (n = 0; n < OOMS_PATH_LEN; n++) {
			struct iovec l1 = {buf + n, 1}, r1 = {(void *)(uintptr_t)(at + (uint64_t)n), 1};

			if (process_vm_readv(pid, &l1, 1, &r1, 1, 0) != 1 || !buf[n])
				break;
		}
	}
	if (n <= 0)
		return NULL;
	buf[n < OOMS_PATH_LEN ? n : OOMS_PATH_LEN] = 0;
	return buf[0] ? strndup(buf, OOMS_PATH_LEN) : NULL;
}

void ooms_attrib_event(struct ooms_attrib *a, const struct ooms_event *e)
{
	struct origin *o;

	if (e->version != OOMS_EVENT_VERSION)
		return;
	a->events++;
	switch (e->type) {
	case EV_FD_OPEN:
		if ((o = attrib_fd_origin(a, e->ret))) {
			attrib_fill_origin(a, o, e);
			free(o->path);
			o->is_socket = !!(e->arg1 & OOMS_SOCKET_TAG);
			if (o->is_socket) {
				char desc[64];

				o->path = strdup(socket_desc(e->arg1, desc, sizeof(desc)));
			} else if (e->path[0]) {
				o->path = strndup(e->path, sizeof(e->path));
			} else {
				o->path = (e->arg1 & OOMS_PATH_PTR_TAG) ? path_from_memory(a->pid, e->arg1 & (OOMS_PATH_PTR_TAG - 1))
									: NULL;
			}
		}
		if ((int64_t)e->arg0 >= 0 && (o = attrib_fd_origin(a, (int64_t)e->arg0))) {
			char desc[64];

			attrib_fill_origin(a, o, e);
			free(o->path);
			o->is_socket = !!(e->arg1 & OOMS_SOCKET_TAG); /* socketpair's second */
			o->path = o->is_socket ? strdup(socket_desc(e->arg1, desc, sizeof(desc))) : NULL;
		}
		if (e->java_pc)
			java_asked(a, e, e->ret, (int64_t)e->arg0);
		break;
	case EV_THREAD_NEW: {
		struct thread_slot *t = attrib_thread_find(a, (uint32_t)e->ret, 1);

		attrib_fill_origin(a, &t->o, e);
		t->o.start = e->arg1;
		if (e->java_pc)
			java_asked(a, e, e->ret, -1);
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
		attrib_fill_origin(a, &a->maps[a->nmaps].o, e);
		a->nmaps++;
		if (e->java_pc)
			java_asked(a, e, e->ret, -1);
		break;
	}
	case EV_DIRECT_ALLOC: {
		struct direct_block *b;

		if (e->arg1) /* reallocateMemory: the old block is gone */
			attrib_direct_forget(a, e->arg1);
		if ((b = attrib_direct_add(a, (uint64_t)e->ret, e->arg0))) {
			attrib_fill_origin(a, &b->o, e);
			if (e->java_pc)
				java_asked(a, e, e->ret, -1);
		}
		break;
	}
	case EV_DIRECT_FREE:
		attrib_direct_forget(a, (uint64_t)e->ret);
		break;
	case EV_CALL_FAIL:
		jfail_push(a, e);
		if (e->java_pc)
			java_asked(a, e, 0, -1);
		break;
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
	if (o->path && !o->is_socket) { /* the path the open was given, taken in the kernel as it returned */
		snprintf(buf, len, "%s", o->path);
		return buf;
	}
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

size_t ooms_attrib_fds_without_event(const struct ooms_attrib *a, const struct ooms_snapshot *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nfds; i++) {
		int64_t fd = s->fds[i].fd;

		/* not there at attach, and no creation event read: either the
		 * kernel never ran the syscall hook for it, or its event is lost */
		if (fd >= 0 && ((size_t)fd >= a->nfds || !a->fds[fd].seen))
			n++;
	}
	return n;
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
