/* Attribution written out: threads.json, fds.json and vmsize.json (groups
 * with their creation stacks in crash-log form, attrib_frames.c), and the
 * end's summary. */
#define _GNU_SOURCE
#include "collector/attrib/attrib_int.h"
#include "run/snapshot.h"
#include "util/vec.h"
#include "sym/perfmap.h"
#include "sym/art_frames.h"
#include "util/text.h"


static int path_cmp(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* An item to group: group key (name or kind), stack, and extra keys. */
#define OOMS_FOLDED 128 /* a thread name with its numbers folded */

struct item {
	const char *group;
	uint32_t stack;
	uint32_t nr;
	uint64_t start;
	uint8_t seen;
	const char *path; /* fds: the target; threads: the name as it is (group: folded) */
	const char *sockdesc; /* sockets: family and type from the call that made it, or NULL */
	uint32_t jstack;  /* the Java stack the shim reported for its creation (0: none) */
	uint8_t jstate;
	/* name of the thread that made it: a copy, since looking up a later fd
	 * may move the origins it came from */
	char creator[OOMS_COMM_LEN];
};

static int item_cmp(const void *pa, const void *pb)
{
	const struct item *x = pa, *y = pb;
	int c = strcmp(x->group, y->group);

	if (c)
		return c;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	if (x->jstack != y->jstack)
		return x->jstack < y->jstack ? -1 : 1;
	if (x->jstate != y->jstate)
		return x->jstate < y->jstate ? -1 : 1;
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (int)x->seen - (int)y->seen;
}

struct span { size_t begin, end; };

static int span_cmp_desc(const void *pa, const void *pb)
{
	const struct span *x = pa, *y = pb;
	size_t nx = x->end - x->begin, ny = y->end - y->begin;

	return nx == ny ? (x->begin < y->begin ? -1 : 1) : (nx > ny ? -1 : 1);
}

/* Splits sorted items [b, e) into runs where same(i, begin) holds, sorted largest first. */
static size_t runs(const struct item *it, size_t b, size_t e, int by_stack, struct span *out)
{
	size_t n = 0;

	for (size_t i = b; i < e;) {
		size_t k = i + 1;

		while (k < e && (by_stack ? (it[k].stack == it[i].stack && it[k].jstack == it[i].jstack &&
					     it[k].jstate == it[i].jstate && it[k].nr == it[i].nr &&
					     it[k].start == it[i].start && it[k].seen == it[i].seen)
					  : !strcmp(it[k].group, it[i].group)))
			k++;
		out[n++] = (struct span){i, k};
		i = k;
	}
	qsort(out, n, sizeof(*out), span_cmp_desc);
	return n;
}

static const char *unknown_reason(uint8_t seen)
{
	return seen == 2 ? "existed at attach" : "creation event not received";
}

static void write_stack_groups(struct json *j, struct ooms_attrib *a, struct item *it, struct span g,
			       int is_thread)
{
	struct span *st = calloc(g.end - g.begin, sizeof(*st));
	size_t ns;
	char buf[256];

	run_snap_stacks_begin(j); /* closed by the group's end */
	if (!st)
		return;
	ns = runs(it, g.begin, g.end, 1, st);
	for (size_t s = 0; s < ns; s++) {
		const struct item *x = &it[st[s].begin];
		struct run_snap_stack rs = {.count = st[s].end - st[s].begin};

		if (!x->stack) {
			rs.unknown = unknown_reason(x->seen);
			/* a thread there at attach whose starter the shim recorded from the JVM's start */
			rs.created_by = ooms_attrib_java_culprit(a, x->jstate, x->jstack, buf, sizeof(buf));
			run_snap_stack_write(j, &rs);
			if (rs.created_by)
				ooms_attrib_write_java(j, a, x->jstate, x->jstack);
		} else {
			/* in Java code, the app's first Java frame; else the native code's */
			rs.created_by = x->jstate == JS_GOT ? ooms_attrib_java_culprit(a, JS_GOT, x->jstack, buf, sizeof(buf))
							    : ooms_attrib_culprit(a, x->stack, buf, sizeof(buf));
			rs.creator_thread = x->creator[0] ? x->creator : NULL;
			rs.syscall = is_thread ? NULL : ooms_syscall_name(a->arch, x->nr);
			run_snap_stack_write(j, &rs);
			ooms_attrib_write_java(j, a, x->jstate, x->jstack);
			if (is_thread && x->start) {
				run_snap_start_routine_key(j);
				attrib_write_frame(j, a, x->start, 0);
			}
			ooms_attrib_write_frames(j, a, x->stack);
		}
		run_snap_stack_end(j);
	}
	free(st);
}

static int open_out(struct atomic_file *af, struct json *j, const char *path)
{
	int err = atomic_open(af, path);

	if (err)
		return err;
	json_init(j, af->f, 1);
	return 0;
}


/* A thread group whose name was folded: up to three of its names as they are. */
static void write_name_examples(struct json *j, struct item *it, struct span g)
{
	size_t n = g.end - g.begin, shown = 0;
	const char **p = calloc(n, sizeof(*p));

	if (!p)
		return;
	for (size_t i = 0; i < n; i++)
		p[i] = it[g.begin + i].path;
	qsort(p, n, sizeof(*p), path_cmp);
	if (n && (strcmp(p[0], it[g.begin].group) || strcmp(p[n - 1], it[g.begin].group))) {
		for (size_t i = 0; i < n && shown < 3; i++) /* the distinct ones, first in place */
			if (!i || strcmp(p[i], p[i - 1]))
				p[shown++] = p[i];
		run_snap_examples(j, p, shown);
	}
	free(p);
}

int ooms_attrib_write_threads(struct ooms_attrib *a, const struct ooms_snapshot *s, const char *path)
{
	struct item *it = calloc(s->nthreads + 1, sizeof(*it));
	struct span *gr = calloc(s->nthreads + 1, sizeof(*gr));
	char (*folded)[OOMS_FOLDED] = calloc(s->nthreads + 1, OOMS_FOLDED);
	struct atomic_file af;
	struct json j;
	size_t ng;
	int err;

	if (!it || !gr || !folded) {
		free(it);
		free(gr);
		free(folded);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread_slot *t = attrib_thread_find(a, s->threads[i].tid, 0);

		/* grouped by the name with its numbers folded: poller-0..59 are poller-* */
		it[i].path = t && t->java_name ? t->java_name : s->threads[i].comm;
		it[i].group = text_fold_numbers(folded[i], OOMS_FOLDED, it[i].path);
		if (t) {
			it[i].stack = t->o.stack;
			it[i].jstack = t->o.jstack;
			it[i].jstate = t->o.jstate;
			it[i].start = t->o.start;
			it[i].seen = t->o.seen;
			memcpy(it[i].creator, t->o.comm, sizeof(it[i].creator));
		}
	}
	qsort(it, s->nthreads, sizeof(*it), item_cmp);
	ng = runs(it, 0, s->nthreads, 0, gr);

	err = open_out(&af, &j, path);
	if (!err) {
		run_snapshot_begin(&j, SNAP_THREADS, a->pid, s->t, s->alive, (int64_t)s->nthreads, s->thread_limit);
		for (size_t g = 0; g < ng; g++) {
			run_snap_group_begin(&j, SNAP_THREADS, it[gr[g].begin].group, gr[g].end - gr[g].begin);
			write_name_examples(&j, it, gr[g]);
			write_stack_groups(&j, a, it, gr[g], 1);
			run_snap_group_end(&j);
		}
		run_snapshot_end(&j);
		json_end_line(&j);
		err = atomic_commit(&af);
	}
	free(it);
	free(gr);
	free(folded);
	return err;
}

/* The strings p[0..n) (sorted here) as [{path or family: string, count}],
 * one per distinct string, at most max. */
static void write_counts(struct json *j, enum run_snap_counted what, const char **p, size_t n, size_t max)
{
	size_t shown = 0;

	vec_sort(p, n, sizeof(*p), path_cmp);
	run_snap_counts_begin(j, what);
	for (size_t i = 0; i < n && shown < max; shown++) {
		size_t k = i + 1;

		while (k < n && !strcmp(p[k], p[i]))
			k++;
		run_snap_count(j, what, p[i], k - i);
		i = k;
	}
	run_snap_list_end(j);
}

/* Regular files: the paths and how many fds each has open (the first 50
 * in path order); sockets: their family and type (from the socket call). */
static void write_paths(struct json *j, struct item *it, struct span g, int sockets)
{
	size_t n = g.end - g.begin, m = 0;
	const char **p = calloc(n + 1, sizeof(*p));

	if (!p)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *v = sockets ? it[g.begin + i].sockdesc : it[g.begin + i].path;

		if (v)
			p[m++] = v;
	}
	if (sockets)
		write_counts(j, RUN_SNAP_FAMILIES, p, m, SIZE_MAX);
	else
		write_counts(j, RUN_SNAP_PATHS, p, m, 50);
	free(p);
}

struct pattern {
	char text[256];
	const char *path; /* one of its paths */
};

static int pattern_cmp(const void *pa, const void *pb)
{
	const struct pattern *x = pa, *y = pb;
	int c = strcmp(x->text, y->text);

	return c ? c : strcmp(x->path, y->path);
}

/* Group g's paths folded into patterns (runs of digits, long hex and UUIDs
 * made '*': a program's numbered temp files are one pattern): *pats sorted
 * by pattern, *spans one per pattern, most paths first. Their count, 0
 * (and nothing to free) when memory ran out. */
static size_t fold_patterns(const struct item *it, struct span g, struct pattern **pats, struct span **spans)
{
	size_t n = g.end - g.begin, ns = 0;
	struct pattern *p = calloc(n + 1, sizeof(*p));
	struct span *sp = calloc(n + 1, sizeof(*sp));

	*pats = NULL;
	*spans = NULL;
	if (!p || !sp) {
		free(p);
		free(sp);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		p[i].path = it[g.begin + i].path ? it[g.begin + i].path : "";
		text_fold_numbers(p[i].text, sizeof(p[i].text), p[i].path);
	}
	vec_sort(p, n, sizeof(*p), pattern_cmp);
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;

		while (k < n && !strcmp(p[k].text, p[i].text))
			k++;
		sp[ns++] = (struct span){i, k};
		i = k;
	}
	vec_sort(sp, ns, sizeof(*sp), span_cmp_desc);
	*pats = p;
	*spans = sp;
	return ns;
}

/* Regular files' path patterns, with their counts and up to three
 * examples, most first (the first 20). */
static void write_patterns(struct json *j, struct item *it, struct span g)
{
	struct pattern *p;
	struct span *sp;
	size_t ns = fold_patterns(it, g, &p, &sp);

	run_snap_patterns_begin(j);
	for (size_t s = 0; s < ns && s < 20; s++) {
		const char *ex[3];
		size_t shown = 0;

		for (size_t i = sp[s].begin; i < sp[s].end && shown < 3; i++)
			if (i == sp[s].begin || strcmp(p[i].path, p[i - 1].path))
				ex[shown++] = p[i].path;
		run_snap_pattern(j, p[sp[s].begin].text, sp[s].end - sp[s].begin, ex, shown);
	}
	run_snap_list_end(j);
	free(p);
	free(sp);
}

int ooms_attrib_write_fds(struct ooms_attrib *a, const struct ooms_snapshot *s, const char *path)
{
	struct item *it = calloc(s->nfds + 1, sizeof(*it));
	struct span *gr = calloc(s->nfds + 1, sizeof(*gr));
	char (*kinds)[64] = calloc(s->nfds + 1, 64);
	struct atomic_file af;
	struct json j;
	size_t ng;
	int err = -ENOMEM;

	if (!it || !gr || !kinds)
		goto out;
	for (size_t i = 0; i < s->nfds; i++) {
		struct origin *o = attrib_fd_origin(a, s->fds[i].fd);

		it[i].group = ooms_fd_kind(ooms_snap_fd_target(s, i), kinds[i], 64);
		it[i].path = ooms_snap_fd_target(s, i);
		if (o) {
			it[i].sockdesc = o->is_socket ? o->path : NULL;
			it[i].stack = o->stack;
			it[i].jstack = o->jstack;
			it[i].jstate = o->jstate;
			it[i].nr = o->stack ? o->nr : 0;
			it[i].seen = o->seen;
			memcpy(it[i].creator, o->comm, sizeof(it[i].creator));
		}
	}
	qsort(it, s->nfds, sizeof(*it), item_cmp);
	ng = runs(it, 0, s->nfds, 0, gr);

	err = open_out(&af, &j, path);
	if (err)
		goto out;
	run_snapshot_begin(&j, SNAP_FDS, a->pid, s->t, s->alive, (int64_t)s->nfds, s->fd_limit);
	for (size_t g = 0; g < ng; g++) {
		run_snap_group_begin(&j, SNAP_FDS, it[gr[g].begin].group, gr[g].end - gr[g].begin);
		if (!strcmp(it[gr[g].begin].group, "file")) {
			write_paths(&j, it, gr[g], 0);
			write_patterns(&j, it, gr[g]);
		} else if (!strcmp(it[gr[g].begin].group, "socket")) {
			write_paths(&j, it, gr[g], 1);
		}
		write_stack_groups(&j, a, it, gr[g], 0);
		run_snap_group_end(&j);
	}
	run_snapshot_end(&j);
	json_end_line(&j);
	err = atomic_commit(&af);
out:
	free(it);
	free(gr);
	free(kinds);
	return err;
}

static int map_size_cmp(const void *pa, const void *pb)
{
	const struct snap_map *x = pa, *y = pb;
	uint64_t nx = x->end - x->start, ny = y->end - y->start;

	return nx == ny ? 0 : (nx > ny ? -1 : 1);
}

static int origin_stack_cmp(const void *pa, const void *pb)
{
	const struct big_map *x = *(const struct big_map *const *)pa, *y = *(const struct big_map *const *)pb;

	if (x->o.stack != y->o.stack)
		return x->o.stack < y->o.stack ? -1 : 1;
	return x->o.nr < y->o.nr ? -1 : x->o.nr > y->o.nr;
}

/* The tracked big mmaps inside one live mapping (the kernel merges adjacent
 * anonymous mappings into one), newest per address, grouped by stack. */
static void write_map_origins(struct json *j, struct ooms_attrib *a, uint64_t start, uint64_t end)
{
	const struct big_map **in = calloc(a->nmaps + 1, sizeof(*in));
	size_t n = 0;
	char buf[256];

	if (!in)
		return;
	for (size_t i = a->nmaps; i-- > 0;) {
		const struct big_map *b = &a->maps[i];
		int dup = 0;

		if (b->addr < start || b->addr >= end)
			continue;
		for (size_t k = 0; k < n && !dup; k++)
			dup = in[k]->addr == b->addr;
		if (!dup)
			in[n++] = b;
	}
	qsort(in, n, sizeof(*in), origin_stack_cmp);
	for (size_t i = 0; i < n;) {
		size_t k = i;
		uint64_t bytes = 0;

		while (k < n && in[k]->o.stack == in[i]->o.stack && in[k]->o.nr == in[i]->o.nr)
			bytes += in[k++]->len;
		run_vmsize_origin_begin(j, &(struct run_vmsize_origin){
			.count = k - i, .mapped_bytes = bytes, .syscall = ooms_syscall_name(a->arch, in[i]->o.nr),
			.thread = in[i]->o.comm, .created_by = ooms_attrib_culprit(a, in[i]->o.stack, buf, sizeof(buf))});
		ooms_attrib_write_frames(j, a, in[i]->o.stack);
		run_vmsize_origin_end(j);
		i = k;
	}
	free(in);
}

int ooms_attrib_write_vmsize(struct ooms_attrib *a, const struct ooms_snapshot *s, const char *path)
{
	struct snap_map *m = calloc(s->nmaps + 1, sizeof(*m));
	struct atomic_file af;
	struct json j;
	size_t top;
	int err;

	if (!m)
		return -ENOMEM;
	if (s->nmaps) /* none: the target gone before they were read */
		memcpy(m, s->maps, s->nmaps * sizeof(*m));
	vec_sort(m, s->nmaps, sizeof(*m), map_size_cmp);
	top = s->nmaps < 32 ? s->nmaps : 32;
	err = open_out(&af, &j, path);
	if (err) {
		free(m);
		return err;
	}
	/* the mappings as read from /proc, or (the target gone first) that
	 * reading with the large mmaps and munmaps the kernel side saw since */
	run_vmsize_begin(&j, &(struct run_vmsize_head){
		.pid = a->pid, .t = s->t, .alive = s->alive, .vmsize_kb = s->vmsize_kb, .vmpeak_kb = s->vmpeak_kb,
		.mappings_total = s->nmaps, .mappings_replayed = s->maps_replayed,
		.replay_partial = s->maps_replay_partial});
	for (size_t i = 0; i < top; i++) {
		run_vmsize_map_begin(&j, &(struct run_vmsize_map){m[i].start, m[i].end, m[i].perms,
								  m[i].path[0] ? m[i].path : NULL});
		write_map_origins(&j, a, m[i].start, m[i].end);
		run_vmsize_map_end(&j);
	}
	run_vmsize_end(&j);
	json_end_line(&j);
	err = atomic_commit(&af);
	free(m);
	return err;
}

/* The commonest path pattern of group g's items, in top; its count (0: none). */
static size_t top_pattern(const struct item *it, struct span g, char *top, size_t len)
{
	struct pattern *p;
	struct span *sp;
	size_t best = 0;

	top[0] = 0;
	if (fold_patterns(it, g, &p, &sp)) {
		best = sp[0].end - sp[0].begin;
		snprintf(top, len, "%s", p[sp[0].begin].text);
	}
	free(p);
	free(sp);
	return best;
}

int ooms_attrib_summary(struct ooms_attrib *a, const struct ooms_snapshot *s, char *buf, size_t len)
{
	struct item *it = calloc(s->nthreads + s->nfds + 1, sizeof(*it));
	struct span *gr = calloc(s->nthreads + s->nfds + 1, sizeof(*gr));
	char (*kinds)[64] = calloc(s->nfds + 1, 64);
	char (*folded)[OOMS_FOLDED] = calloc(s->nthreads + 1, OOMS_FOLDED);
	size_t off = 0, ng;
	int lines = 0;

	if (!it || !gr || !kinds || !folded)
		goto out;
	buf[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		size_t n = pass ? s->nfds : s->nthreads;

		for (size_t i = 0; i < n; i++) {
			struct origin *o = NULL;

			if (pass) {
				it[i].group = ooms_fd_kind(ooms_snap_fd_target(s, i), kinds[i], 64);
				it[i].path = ooms_snap_fd_target(s, i);
				o = attrib_fd_origin(a, s->fds[i].fd);
			} else {
				struct thread_slot *t = attrib_thread_find(a, s->threads[i].tid, 0);

				it[i].group = text_fold_numbers(folded[i], OOMS_FOLDED,
								t && t->java_name ? t->java_name : s->threads[i].comm);
				o = t ? &t->o : NULL;
			}
			it[i].stack = o ? o->stack : 0;
			it[i].jstack = o ? o->jstack : 0;
			it[i].jstate = o ? o->jstate : 0;
			it[i].nr = 0;
			it[i].start = 0;
			it[i].seen = 0;
		}
		qsort(it, n, sizeof(*it), item_cmp);
		ng = runs(it, 0, n, 0, gr);
		for (size_t g = 0; g < ng && g < 3; g++) {
			struct span st[1];
			char who[256];
			const char *c = NULL, *note = "";
			struct span *all = calloc(gr[g].end - gr[g].begin, sizeof(*all));

			if (all && runs(it, gr[g].begin, gr[g].end, 1, all) > 0) {
				st[0] = all[0];
				if (it[st[0].begin].jstate == JS_GOT)
					c = ooms_attrib_java_culprit(a, JS_GOT, it[st[0].begin].jstack, who, sizeof(who));
				else if (it[st[0].begin].stack)
					c = ooms_attrib_culprit(a, it[st[0].begin].stack, who, sizeof(who));
				if (it[st[0].begin].jstate == JS_SAMPLED)
					note = " (Java stack sampled out)";
			}
			free(all);
			/* names from the target: one line each, no escapes reach the terminal */
			char group[160], by[320];

			text_term_safe(group, sizeof(group), it[gr[g].begin].group);
			if (pass && !strcmp(it[gr[g].begin].group, "file")) { /* its commonest path pattern */
				char top[256], tmp[160];
				size_t k = top_pattern(it, gr[g], top, sizeof(top));

				if (k > 1)
					snprintf(tmp, sizeof(tmp), "file (%zu: %s)", k, top);
				else
					snprintf(tmp, sizeof(tmp), "file");
				text_term_safe(group, sizeof(group), tmp);
			}
			text_term_safe(by, sizeof(by), c ? c : "(no creation stack)");
			off += snprintf(buf + off, off < len ? len - off : 0, "  %5zu %-7s %-24s <- %s%s\n",
					gr[g].end - gr[g].begin, pass ? "fds" : "threads", group, by, note);
			lines++;
		}
	}
out:
	free(it);
	free(gr);
	free(kinds);
	free(folded);
	return lines;
}
