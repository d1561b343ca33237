#include "collector/attrib/big_allocs.h"
#include "run/records.h"
#include "run/allocs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "util/atomic_file.h"
#include "util/json.h"
#include "util/vec.h"

struct ooms_allocs {
	struct ooms_attrib *a;
	uint64_t threshold;
	int mode, live;
	unsigned depth;
	struct ooms_alloc_rec *recs;
	size_t n, cap;
	uint64_t frees_unmatched; /* a free of a block we have no record of (record lost) */
	const char *names[AF_MAX];   /* overrides: aliases in this libc */
};

const char *ooms_alloc_fn_name(unsigned fn)
{
	static const char *const names[AF_MAX] = {
		[AF_MMAP] = "mmap",       [AF_MREMAP] = "mremap",         [AF_BRK] = "brk",
		[AF_MALLOC] = "malloc",   [AF_CALLOC] = "calloc",         [AF_REALLOC] = "realloc",
		[AF_POSIX_MEMALIGN] = "posix_memalign", [AF_ALIGNED_ALLOC] = "aligned_alloc",
		[AF_MEMALIGN] = "memalign", [AF_VALLOC] = "valloc",       [AF_NEW] = "operator new",
		[AF_NEW_ARRAY] = "operator new[]", [AF_MPROTECT] = "mprotect", [AF_FREE] = "free",
	};

	return fn < AF_MAX && names[fn] ? names[fn] : "?";
}

struct ooms_allocs *ooms_allocs_new(struct ooms_attrib *a, uint64_t threshold, int mode, int live, unsigned depth)
{
	struct ooms_allocs *al = calloc(1, sizeof(*al));

	if (!al)
		return NULL;
	al->a = a;
	al->threshold = threshold;
	al->mode = mode;
	al->live = live;
	al->depth = depth;
	return al;
}

void ooms_allocs_alias(struct ooms_allocs *al, unsigned fn, const char *name)
{
	if (al && fn < AF_MAX)
		al->names[fn] = name;
}

static const char *fn_name(const struct ooms_allocs *al, unsigned fn)
{
	return fn < AF_MAX && al->names[fn] ? al->names[fn] : ooms_alloc_fn_name(fn);
}

void ooms_allocs_free(struct ooms_allocs *al)
{
	if (!al)
		return;
	free(al->recs);
	free(al);
}

const struct ooms_alloc_rec *ooms_allocs_event(struct ooms_allocs *al, const struct ooms_event *e, size_t size)
{
	const struct ooms_alloc_event *big = (const void *)e;
	struct ooms_alloc_rec *r;

	if (!al || e->version != OOMS_EVENT_VERSION)
		return NULL;
	if (e->type == EV_ALLOC_FREE) {
		/* the newest live record of that address */
		for (size_t i = al->n; i-- > 0;)
			if (al->recs[i].addr == (uint64_t)e->ret && al->recs[i].state == ALLOC_LIVE) {
				al->recs[i].state = ALLOC_FREED;
				return &al->recs[i];
			}
		al->frees_unmatched++;
		return NULL;
	}
	if (e->type != EV_BIG_ALLOC)
		return NULL;
	if (vec_reserve((void **)&al->recs, &al->cap, al->n + 1, sizeof(*al->recs)))
		return NULL;
	r = &al->recs[al->n++];
	memset(r, 0, sizeof(*r));
	r->ts_ns = e->ts_ns;
	r->bytes = e->arg0;
	r->addr = (uint64_t)e->ret;
	r->tid = e->tid;
	r->fn = (uint8_t)e->arg1;
	r->stack = size >= sizeof(*big) ? ooms_attrib_stack(al->a, e, big->deep, OOMS_DEEP_WORDS, al->depth)
					 : ooms_attrib_stack(al->a, e, NULL, 0, al->depth);
	/* with return probes an address means a live block; syscall-mode
	 * mappings are not followed to their munmap */
	r->state = al->live && r->addr ? ALLOC_LIVE : ALLOC_UNKNOWN;
	memcpy(r->comm, e->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = 0;
	return r;
}

static const char *state_name(uint8_t s)
{
	return s == ALLOC_LIVE ? "live" : s == ALLOC_FREED ? "freed" : "unknown";
}

void ooms_allocs_line(struct ooms_allocs *al, const struct ooms_alloc_rec *r, char *buf, size_t len)
{
	char who[300];
	const char *c = ooms_attrib_culprit(al->a, r->stack, who, sizeof(who));

	if (r->state == ALLOC_FREED)
		snprintf(buf, len, "freed     %.1f MB at 0x%" PRIx64 " (%s in %s, tid %u)", r->bytes / 1048576.0, r->addr,
			 fn_name(al, r->fn), r->comm, r->tid);
	else
		snprintf(buf, len, "big alloc %.1f MB %s in %s (tid %u) <- %s", r->bytes / 1048576.0,
			 fn_name(al, r->fn), r->comm, r->tid, c ? c : "?");
}

/* r as the run directory's record; its culprit goes into who. */
static struct run_alloc run_rec(struct ooms_allocs *al, const struct ooms_alloc_rec *r, uint64_t start_ns, char *who,
				size_t who_len)
{
	return (struct run_alloc){.t = r->ts_ns > start_ns ? (r->ts_ns - start_ns) / 1e9 : 0, .bytes = r->bytes,
				  .function = fn_name(al, r->fn), .tid = r->tid, .thread = r->comm, .address = r->addr,
				  .state = state_name(r->state), .stack_id = r->stack,
				  .allocated_by = ooms_attrib_culprit(al->a, r->stack, who, who_len)};
}

/* A stack's frames (a group's, an allocation's), from its interned stack. */
struct group_frames {
	struct ooms_attrib *a;
	uint32_t stack;
};

static void group_frames_write(struct json *j, void *ctx)
{
	struct group_frames *gf = ctx;

	ooms_attrib_write_frames(j, gf->a, gf->stack);
}

void ooms_allocs_json(struct json *j, struct ooms_allocs *al, const struct ooms_alloc_rec *r, double t,
		      uint64_t start_ns)
{
	char who[300];
	struct run_alloc a = run_rec(al, r, start_ns, who, sizeof(who));
	struct group_frames gf = {al->a, r->stack};

	run_alloc_record(j, &a, t, r->state == ALLOC_FREED, group_frames_write, &gf);
}

struct group {
	uint32_t stack;
	uint64_t count, bytes, live_bytes, largest;
	uint32_t fns;  /* bit per enum ooms_alloc_fn */
};

static int group_cmp(const void *pa, const void *pb)
{
	const struct group *x = pa, *y = pb;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The records grouped by stack, largest total first; *ng groups. Stack ids
 * are dense (interned), so an open-addressed table keyed by id is enough. */
static struct group *group_by_stack(const struct ooms_allocs *al, size_t *ng)
{
	size_t cap = 16, n = 0;
	struct group *g;
	uint32_t *slot;

	while (cap < 2 * al->n + 2)
		cap <<= 1;
	g = calloc(al->n + 1, sizeof(*g));
	slot = malloc(cap * sizeof(*slot));
	if (!g || !slot) {
		free(g);
		free(slot);
		return NULL;
	}
	memset(slot, 0xff, cap * sizeof(*slot));
	for (size_t i = 0; i < al->n; i++) {
		const struct ooms_alloc_rec *r = &al->recs[i];
		size_t h = (r->stack * 2654435761u) & (cap - 1);
		struct group *x;

		while (slot[h] != UINT32_MAX && g[slot[h]].stack != r->stack)
			h = (h + 1) & (cap - 1);
		if (slot[h] == UINT32_MAX) {
			slot[h] = (uint32_t)n;
			g[n++].stack = r->stack;
		}
		x = &g[slot[h]];
		x->count++;
		x->bytes += r->bytes;
		if (r->state == ALLOC_LIVE)
			x->live_bytes += r->bytes;
		if (r->bytes > x->largest)
			x->largest = r->bytes;
		x->fns |= 1u << r->fn;
	}
	free(slot);
	qsort(g, n, sizeof(*g), group_cmp);
	*ng = n;
	return g;
}

int ooms_allocs_write(struct ooms_allocs *al, const char *path, uint64_t start_ns)
{
	struct atomic_file af;
	size_t ng = 0;
	struct group *g = group_by_stack(al, &ng);
	struct json j;
	int e;

	if (!g)
		return -ENOMEM;
	if ((e = atomic_open(&af, path))) {
		free(g);
		return e;
	}
	json_init(&j, af.f, 0);
	run_allocs_begin(&j, &(struct run_allocs_head){.threshold_bytes = al->threshold,
			 .mode = al->mode == ALLOC_UPROBE ? "uprobe" : "syscall", .return_probes = al->live,
			 .stack_depth = al->depth, .count = al->n, .frees_without_record = al->frees_unmatched});
	for (size_t k = 0; k < ng; k++) {
		char who[300];
		struct group_frames gf = {al->a, g[k].stack};
		struct run_alloc_group rg = {.stack_id = g[k].stack, .count = g[k].count, .total_bytes = g[k].bytes,
					     .largest_bytes = g[k].largest, .live_bytes = g[k].live_bytes, .has_live = al->live,
					     .allocated_by = ooms_attrib_culprit(al->a, g[k].stack, who, sizeof(who)),
					     .write_frames = group_frames_write, .frames_ctx = &gf};

		for (unsigned f = 1; f < AF_MAX && rg.nfunctions < RUN_ALLOC_FUNCTIONS; f++)
			if (g[k].fns & (1u << f))
				rg.functions[rg.nfunctions++] = fn_name(al, f);
		run_alloc_group_write(&j, &rg);
	}
	run_allocs_between(&j);
	for (size_t i = 0; i < al->n; i++) {
		char who[300];
		struct run_alloc a = run_rec(al, &al->recs[i], start_ns, who, sizeof(who));

		run_alloc_write(&j, &a);
	}
	run_allocs_end(&j);
	json_end_line(&j);
	free(g);
	return atomic_commit(&af);
}

int ooms_allocs_text(struct ooms_allocs *al, FILE *f, size_t top, int frames)
{
	size_t ng = 0;
	struct group *g;

	if (!al || !al->n)
		return 0;
	g = group_by_stack(al, &ng);
	if (!g)
		return -ENOMEM;
	fprintf(f, "big allocations (>= %.1f MB, %s mode), %zu in %zu stack(s), largest total first:\n",
		al->threshold / 1048576.0, al->mode == ALLOC_UPROBE ? "uprobe" : "syscall", al->n, ng);
	for (size_t k = 0; k < ng && k < top; k++) {
		char who[300];
		const char *c = ooms_attrib_culprit(al->a, g[k].stack, who, sizeof(who));

		fprintf(f, "  %6" PRIu64 " x  %9.1f MB in all, largest %.1f MB", g[k].count, g[k].bytes / 1048576.0,
			g[k].largest / 1048576.0);
		if (al->live)
			fprintf(f, ", %.1f MB live", g[k].live_bytes / 1048576.0);
		fprintf(f, "  <- %s (", c ? c : "?");
		for (unsigned fn = 1, first = 1; fn < AF_MAX; fn++)
			if (g[k].fns & (1u << fn)) {
				fprintf(f, "%s%s", first ? "" : ", ", fn_name(al, fn));
				first = 0;
			}
		fprintf(f, ")\n");
		if (frames)
			ooms_attrib_print_frames(f, al->a, g[k].stack, "        ");
	}
	if (ng > top)
		fprintf(f, "  ... and %zu more stack(s)\n", ng - top);
	free(g);
	return 0;
}

int ooms_allocs_write_text(struct ooms_allocs *al, const char *path)
{
	struct atomic_file af;
	int e;

	if ((e = atomic_open(&af, path)))
		return e;
	if ((e = ooms_allocs_text(al, af.f, SIZE_MAX, 1))) {
		atomic_abort(&af);
		return e;
	}
	return atomic_commit(&af);
}
