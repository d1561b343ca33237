#define _GNU_SOURCE
#include "collector/attrib/failed_calls.h"
#include "run/failures.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/atomic_file.h"
#include "util/json.h"
#include "util/vec.h"

/* A call site on the terminal (ooms_failures_say). */
struct fail_site {
	uint32_t nr;
	int32_t err;
	char by[300];
	uint64_t said_ns, unsaid;
	uint8_t said;
};

struct ooms_failures {
	struct ooms_attrib *a;
	struct fail_site *sites;
	size_t nsites, sites_cap;
	enum ooms_arch arch;
	struct ooms_fail_group *g;
	size_t n, cap;
	ssize_t last;                /* index of the newest failure */
	size_t *pend;                /* groups failed since the list was last taken */
	size_t npend, pend_cap;
	int seen_kind[FAIL_KIND_MAX];
	uint64_t unknown_errnos; /* failures with an errno errno_name does not know */
	int unknown_errno;       /* the first of them */
};

/* The errnos the kernel side reports as a resource running out
 * (collect_fail.bpf.h's resource_error); another (a class of error added
 * there alone) is named by its number, and counted (ooms_failures_unknown). */
static int errno_known(int e)
{
	return e == EMFILE || e == ENFILE || e == EAGAIN || e == ENOMEM;
}

struct ooms_failures *ooms_failures_new(struct ooms_attrib *a, enum ooms_arch arch)
{
	struct ooms_failures *f = calloc(1, sizeof(*f));

	if (f) {
		f->a = a;
		f->arch = arch;
		f->last = -1;
	}
	return f;
}

void ooms_failures_free(struct ooms_failures *f)
{
	if (f) {
		free(f->g);
		free(f->pend);
		free(f->sites);
	}
	free(f);
}

const char *ooms_fail_kind_name(enum ooms_fail_kind k)
{
	static const char *const names[] = {"fds", "threads", "memory"};

	return (unsigned)k < FAIL_KIND_MAX ? names[k] : "?";
}

static enum ooms_fail_kind kind_of(enum ooms_arch arch, uint32_t nr)
{
	const char *call = ooms_syscall_name(arch, nr);

	if (!strcmp(call, "clone") || !strcmp(call, "clone3") || !strcmp(call, "fork") || !strcmp(call, "vfork"))
		return FAIL_THREADS;
	if (!strcmp(call, "mmap") || !strcmp(call, "mmap2") || !strcmp(call, "mremap") || !strcmp(call, "brk") ||
	    !strcmp(call, "mprotect"))
		return FAIL_MEMORY;
	return FAIL_FDS;
}

static int same_key(const struct ooms_fail_key *a, const struct ooms_fail_key *b)
{
	return a->stack_id == b->stack_id && a->nr == b->nr && a->err == b->err;
}

/* A group is one kernel key and one stack as unwound here: the kernel's
 * stack id may lump callers of one libc function together. */
static struct ooms_fail_group *find(struct ooms_failures *f, const struct ooms_fail_key *k, uint32_t stack)
{
	for (size_t i = 0; i < f->n; i++)
		if (same_key(&f->g[i].key, k) && f->g[i].stack == stack)
			return &f->g[i];
	return NULL;
}

const struct ooms_fail_group *ooms_failures_event(struct ooms_failures *f, const struct ooms_event *e,
						  size_t size, int *is_first)
{
	struct ooms_fail_key k = {0};
	struct ooms_fail_group *g;
	uint32_t stack;

	*is_first = 0;
	if (!f || e->type != EV_CALL_FAIL || e->version != OOMS_EVENT_VERSION)
		return NULL;
	k.stack_id = (int32_t)(uint32_t)(e->arg1 >> 32);
	k.nr = e->nr;
	k.err = (int32_t)-e->ret;
	/* unwound through the deep slice when it came (see collect.h) */
	stack = size >= sizeof(struct ooms_alloc_event)
			? ooms_attrib_stack_scan(f->a, e, ((const struct ooms_alloc_event *)e)->deep, OOMS_DEEP_WORDS)
			: ooms_attrib_stack(f->a, e, NULL, 0, 0);
	g = find(f, &k, stack);
	if (!g) {
		if (!(g = VEC_PUSH(f->g, f->n, f->cap)))
			return NULL;
		memset(g, 0, sizeof(*g));
		g->key = k;
		g->kind = kind_of(f->arch, e->nr);
		g->first_ns = e->ts_ns;
		g->tid = e->tid;
		g->live = e->live;
		memcpy(g->comm, e->comm, sizeof(g->comm));
		g->comm[sizeof(g->comm) - 1] = 0;
		g->stack = stack;
		if (!f->seen_kind[g->kind]) {
			f->seen_kind[g->kind] = 1;
			*is_first = 1;
		}
	}
	if (!errno_known(k.err) && !f->unknown_errnos++)
		f->unknown_errno = k.err;
	g->count++;
	g->sent++;
	if (e->ts_ns > g->last_ns)
		g->last_ns = e->ts_ns;
	if (g->kind == FAIL_MEMORY ? e->arg0 > g->bytes : !g->bytes)
		g->bytes = e->arg0;
	f->last = g - f->g;
	if (!g->pending) {
		size_t *slot = VEC_PUSH(f->pend, f->npend, f->pend_cap);

		if (slot) {
			*slot = (size_t)f->last;
			g->pending = 1;
		}
	}
	return g;
}

size_t ooms_failures_take_pending(struct ooms_failures *f, size_t *idx, size_t max)
{
	size_t n = f->npend < max ? f->npend : max;

	if (!n)
		return 0;
	memcpy(idx, f->pend, n * sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		f->g[idx[i]].pending = 0;
	memmove(f->pend, f->pend + n, (f->npend - n) * sizeof(*f->pend));
	f->npend -= n;
	return n;
}

uint64_t ooms_failures_estimate(const struct ooms_failures *f, size_t i, uint64_t key_count)
{
	uint64_t sent = 0;

	if (i >= f->n)
		return 0;
	for (size_t k = 0; k < f->n; k++)
		if (same_key(&f->g[k].key, &f->g[i].key))
			sent += f->g[k].sent;
	/* the key's count shared out by what each group sent (set_count) */
	if (!sent || key_count <= sent)
		return f->g[i].count;
	return f->g[i].sent + (uint64_t)((double)(key_count - sent) * f->g[i].sent / sent);
}

int ooms_failures_shared(const struct ooms_failures *f, size_t i)
{
	for (size_t k = 0; i < f->n && k < f->n; k++)
		if (k != i && same_key(&f->g[k].key, &f->g[i].key))
			return 1;
	return 0;
}

struct ooms_fail_group *ooms_failures_group(struct ooms_failures *f, size_t i)
{
	return i < f->n ? &f->g[i] : NULL;
}

static const char *group_by(struct ooms_failures *f, const struct ooms_fail_group *g, char *buf, size_t len)
{
	uint32_t js;
	int jstate = ooms_attrib_java_of_call(f->a, g->tid, g->first_ns, &js);
	const char *by = ooms_attrib_java_culprit(f->a, jstate, js, buf, len);

	return by ? by : ooms_attrib_culprit(f->a, g->stack, buf, len);
}

static struct fail_site *site_of(struct ooms_failures *f, const struct ooms_fail_group *g)
{
	char buf[300];
	const char *by = group_by(f, g, buf, sizeof(buf));
	struct fail_site *s;

	if (!by)
		by = "";
	for (size_t k = 0; k < f->nsites; k++)
		if (f->sites[k].nr == g->key.nr && f->sites[k].err == g->key.err && !strcmp(f->sites[k].by, by))
			return &f->sites[k];
	if (!(s = VEC_PUSH(f->sites, f->nsites, f->sites_cap)))
		return NULL;
	memset(s, 0, sizeof(*s));
	s->nr = g->key.nr;
	s->err = g->key.err;
	snprintf(s->by, sizeof(s->by), "%s", by);
	return s;
}

int ooms_failures_say(struct ooms_failures *f, size_t i, uint64_t now_ns, uint64_t every_ns, uint64_t count,
		      uint64_t *since, uint64_t *prev_ns)
{
	struct ooms_fail_group *g = ooms_failures_group(f, i);
	struct fail_site *s = g ? site_of(f, g) : NULL;

	*since = *prev_ns = 0;
	if (!s)
		return 0;
	if (count > g->accounted) {
		s->unsaid += count - g->accounted;
		g->accounted = count;
	}
	if ((s->said && now_ns - s->said_ns < every_ns) || !s->unsaid)
		return 0;
	*since = s->unsaid;
	*prev_ns = s->said ? s->said_ns : 0;
	s->unsaid = 0;
	s->said = 1;
	s->said_ns = now_ns;
	return 1;
}

size_t ooms_failures_sites(const struct ooms_failures *f)
{
	return f ? f->nsites : 0;
}

/* The failures the kernel only counted (count less those sent), shared out
 * among the key's groups by what each had sent: the kernel's key cannot
 * tell callers of one libc function apart (its frame-pointer walk skips
 * the caller), the stacks unwound here can, and what was sent is a sample
 * of them over time (the first few, then one each 10 ms). With one group
 * the count is exact; with several, estimated (said so). The remainder of
 * the division goes to the one that sent most: the total stays exact. */
void ooms_failures_set_count(struct ooms_failures *f, const struct ooms_fail_key *k, uint64_t count)
{
	struct ooms_fail_group *most = NULL;
	uint64_t sent = 0, unsent, given = 0;
	size_t groups = 0;

	for (size_t i = 0; f && i < f->n; i++)
		if (same_key(&f->g[i].key, k)) {
			sent += f->g[i].sent;
			groups++;
			if (!most || f->g[i].sent > most->sent)
				most = &f->g[i];
		}
	if (!most || count <= sent)
		return;
	unsent = count - sent;
	for (size_t i = 0; i < f->n; i++)
		if (same_key(&f->g[i].key, k)) {
			uint64_t share = sent ? (uint64_t)((double)unsent * f->g[i].sent / sent) : 0;

			f->g[i].count = f->g[i].sent + share;
			f->g[i].estimated = groups > 1;
			given += share;
		}
	most->count += unsent - given;
}

const struct ooms_fail_group *ooms_failures_last(const struct ooms_failures *f)
{
	return f && f->last >= 0 ? &f->g[f->last] : NULL;
}

uint64_t ooms_failures_total(const struct ooms_failures *f)
{
	uint64_t n = 0;

	for (size_t i = 0; f && i < f->n; i++)
		n += f->g[i].count;
	return n;
}

static const char *errno_name(int e)
{
	static char other[512][16];

	switch (e) {
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	}
	if (e < 0 || e >= 512)
		return "errno out of range";
	if (!other[e][0])
		snprintf(other[e], sizeof(other[e]), "errno %d", e);
	return other[e];
}

void ooms_failures_line(struct ooms_failures *f, const struct ooms_fail_group *g, char *buf, size_t len)
{
	char who[300], what[64] = "";
	const char *by = group_by(f, g, who, sizeof(who));

	if (g->kind == FAIL_FDS)
		snprintf(what, sizeof(what), " (%lld fds open)", (long long)g->live);
	else if (g->kind == FAIL_THREADS)
		snprintf(what, sizeof(what), " (%lld threads)", (long long)g->live);
	else if (g->bytes)
		snprintf(what, sizeof(what), " (%.1f MB asked for)", g->bytes / 1048576.0);
	snprintf(buf, len, "%s failed with %s%s in %s (tid %u)%s%s", ooms_syscall_name(f->arch, g->key.nr),
		 errno_name(g->key.err), what, g->comm, g->tid, by ? " <- " : "", by ? by : "");
}

static void write_stacks(struct json *j, void *ctx)
{
	struct ooms_fail_rec *rec = ctx;

	ooms_attrib_write_frames(j, rec->a, rec->stack);
	ooms_attrib_write_java(j, rec->a, rec->jstate, rec->js);
}

void ooms_failures_rec(struct ooms_failures *f, const struct ooms_fail_group *g, uint64_t start_ns,
		       struct ooms_fail_rec *rec)
{
	struct run_fail_group *r = &rec->r;

	memset(rec, 0, sizeof(*rec));
	rec->a = f->a;
	rec->stack = g->stack;
	*r = (struct run_fail_group){
		.kind = ooms_fail_kind_name(g->kind), .syscall = ooms_syscall_name(f->arch, g->key.nr),
		.kernel_stack_id = g->key.stack_id, .err = errno_name(g->key.err), .count = g->count,
		/* one kernel key, several call sites: shared out by the sample sent */
		.count_estimated = g->estimated,
		.t_first = g->first_ns >= start_ns ? (g->first_ns - start_ns) / 1e9 : 0,
		.t_last = g->last_ns >= start_ns ? (g->last_ns - start_ns) / 1e9 : 0,
		.tid = g->tid, .thread = g->comm, .fds_open = -1, .threads = -1, .clone_flags = -1, .bytes = -1,
		.write_stacks = write_stacks, .stacks_ctx = rec};
	if (g->kind == FAIL_FDS)
		r->fds_open = g->live;
	else if (g->kind == FAIL_THREADS) {
		r->threads = g->live;
		r->clone_flags = (int64_t)g->bytes;
	} else
		r->bytes = (int64_t)g->bytes;
	rec->jstate = ooms_attrib_java_of_call(f->a, g->tid, g->first_ns, &rec->js);
	r->called_by = ooms_attrib_java_culprit(f->a, rec->jstate, rec->js, rec->who, sizeof(rec->who));
	if (!r->called_by)
		r->called_by = ooms_attrib_culprit(f->a, g->stack, rec->who, sizeof(rec->who));
}

void ooms_failures_record(struct json *j, struct ooms_failures *f, const struct ooms_fail_group *g,
			  uint64_t start_ns, const char *wrote)
{
	struct ooms_fail_rec rec;

	ooms_failures_rec(f, g, start_ns, &rec);
	run_failure_record(j, &rec.r, wrote);
}

static int by_count(const void *a, const void *b)
{
	const struct ooms_fail_group *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : (x->first_ns > y->first_ns) - (x->first_ns < y->first_ns);
}

int ooms_failures_write(struct ooms_failures *f, const char *path, uint64_t start_ns)
{
	struct atomic_file af;
	struct ooms_fail_group *sorted = NULL;
	struct json j;
	int e;

	if (f && f->n && !(sorted = malloc(f->n * sizeof(*sorted))))
		return -ENOMEM;
	if (sorted) {
		memcpy(sorted, f->g, f->n * sizeof(*sorted));
		qsort(sorted, f->n, sizeof(*sorted), by_count);
	}
	if ((e = atomic_open(&af, path))) {
		free(sorted);
		return e;
	}
	json_init(&j, af.f, 0);
	run_failures_begin(&j, ooms_failures_total(f));
	for (size_t i = 0; f && i < f->n; i++) {
		struct ooms_fail_rec rec;

		ooms_failures_rec(f, &sorted[i], start_ns, &rec);
		run_failures_group(&j, &rec.r);
	}
	run_failures_end(&j);
	json_end_line(&j);
	free(sorted);
	return atomic_commit(&af);
}

uint64_t ooms_failures_unknown(const struct ooms_failures *f, int *first)
{
	if (first)
		*first = f ? f->unknown_errno : 0;
	return f ? f->unknown_errnos : 0;
}
