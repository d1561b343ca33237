/* The memory snapshot (memory.json, a memory crossing's memory-N.json): the
 * figure the memory rule watches and its limit, the system's memory, the
 * target's memory by category from smaps (read now, while it is there),
 * and what grew it, the sampled page faults by stack (attrib_faults.c). */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "proc/smaps.h"
#include "run/memory.h"
#include "util/units.h"
#include "run/records.h"
#include "run/timeline.h"
#include "util/text.h"

#include <json-c/json.h>

static int by_pss(const void *x, const void *y)
{
	const struct run_memory_cat *a = x, *b = y;

	return a->pss_kb != b->pss_kb ? (a->pss_kb > b->pss_kb ? -1 : 1) : strcmp(a->category, b->category);
}

static int64_t or_none(int64_t v)
{
	return v >= 0 ? v : RUN_NONE;
}

/* At most this many faults wait for the maps (~1 KB each); past it they
 * are counted as anonymous memory, as a mapping made since mostly is */
#define FAULTS_DEFERRED_MAX 1024

/* Whether addr is in a JVM's heap: the run of anonymous mappings holding
 * it is the heap's reservation, as large as the heap's maximum within a
 * 64th (HotSpot reserves that, committing parts of it; a -Xmx256m heap read
 * 254 MB of anonymous memory next to each other here); kept once found. */
static int in_java_heap(struct coll *c, uint64_t addr)
{
	int64_t max = c->last_smp.heap_max;
	uint64_t lo, hi;

	if (addr >= c->java_heap_lo && addr < c->java_heap_hi)
		return 1;
	if (max <= 0 || ooms_sym_anon_run(c->sym, addr, &lo, &hi))
		return 0;
	if (hi - lo < (uint64_t)max - (uint64_t)max / 64 || hi - lo > (uint64_t)max + (uint64_t)max / 64)
		return 0;
	c->java_heap_lo = lo;
	c->java_heap_hi = hi;
	return 1;
}

/* A fault grouped by what backs its page in the maps as last read; one
 * still in no mapping read counts as anonymous */
static void fault_grouped(struct coll *c, const struct ooms_event *e, enum ooms_backing b)
{
	ooms_attrib_fault(c->attrib, e, b == OOMS_BACK_UNKNOWN ? OOMS_BACK_ANON : b,
			  b != OOMS_BACK_FILE && b != OOMS_BACK_SHARED && in_java_heap(c, (uint64_t)e->ret));
}

void coll_fault_event(struct coll *c, const struct ooms_event *e)
{
	enum ooms_backing b = ooms_sym_backing(c->sym, (uint64_t)e->ret);

	/* Not read again from here: a burst of new threads is a burst of new
	 * stacks, each a mapping; reading 60,000 mappings at every sampled
	 * fault (each reading takes the target's mmap lock) once held the
	 * collector for 30 s while the ring buffer overflowed. */
	if (b == OOMS_BACK_UNKNOWN && c->nfaults_deferred < FAULTS_DEFERRED_MAX) {
		if (!c->faults_deferred)
			c->faults_deferred = malloc(FAULTS_DEFERRED_MAX * sizeof(*c->faults_deferred));
		if (c->faults_deferred) {
			c->faults_deferred[c->nfaults_deferred++] = *e;
			return;
		}
	}
	fault_grouped(c, e, b);
}

/* The deferred faults, with the maps as last read: a mapped file's pages
 * are a file's; a mapping still unknown (made and undone between two
 * readings) is counted as anonymous. */
void coll_faults_flush(struct coll *c)
{
	for (size_t i = 0; i < c->nfaults_deferred; i++)
		fault_grouped(c, &c->faults_deferred[i], ooms_sym_backing(c->sym, (uint64_t)c->faults_deferred[i].ret));
	c->nfaults_deferred = 0;
}

int coll_write_memory(struct coll *c, const char *path)
{
	const struct ooms_sample *smp = c->snap_smp ? c->snap_smp : &c->last_smp;
	struct run_memory m = {0};
	struct run_memory_cat cats[MEMCAT_MAX];
	struct run_memory_map maps[PROC_SMAPS_TOP];
	struct proc_smaps *sm = malloc(sizeof(*sm));
	uint64_t sent, got;
	int e;

	coll_faults_flush(c); /* the maps a sample read just before, or the last reading */
	sent = coll_k_totals(&c->k)->fault_samples;
	got = ooms_attrib_fault_samples(c->attrib);

	m.pid = c->pid;
	m.t = smp->t;
	m.target_alive = coll_target_ours(c) && !c->died;
	m.memory_kb = or_none(smp->res[RES_MEMORY].value);
	m.limit_kb = or_none(smp->res[RES_MEMORY].limit);
	m.limit_src = smp->res[RES_MEMORY].limit_src;
	m.rss_kb = or_none(smp->rss_kb);
	run_memfig_from(&m.fig, &smp->mem);
	if (c->cg.mem_dir[0]) {
		m.cgroup = c->cg.mem_name[0] ? c->cg.mem_name : "/";
		m.cgroup_limit_kb = c->cg.mem_limit > 0 ? c->cg.mem_limit / 1024 : RUN_NONE;
		m.cgroup_usage_kb = c->cg.mem_usage >= 0 ? c->cg.mem_usage / 1024 : RUN_NONE;
	}
	m.lost = sent > got ? sent - got : 0;
	if (sm && m.target_alive && proc_read_smaps(c->pid, PROC_SMAPS_TOP, sm) == 0) {
		m.has_categories = 1;
		m.pss_kb = sm->total.pss;
		m.smaps_rss_kb = sm->total.rss;
		m.smaps_swap_kb = sm->total.swap;
		for (int k = 0; k < MEMCAT_MAX; k++)
			if (sm->cat[k].rss || sm->cat[k].pss || sm->cat[k].swap)
				cats[m.ncats++] = (struct run_memory_cat){proc_mem_cat_key(k), sm->cat[k].rss, sm->cat[k].pss,
									  sm->cat[k].private_dirty, sm->cat[k].anon,
									  sm->cat[k].swap};
		qsort(cats, m.ncats, sizeof(*cats), by_pss);
		m.cats = cats;
		for (size_t i = 0; i < sm->ntop; i++) {
			const struct proc_mem_map *p = &sm->top[i];

			maps[m.nmaps++] = (struct run_memory_map){p->start, p->end, p->perms, p->name[0] ? p->name : NULL,
								  proc_mem_cat_key(p->cat), p->fig.rss, p->fig.pss,
								  p->fig.anon, p->fig.swap};
		}
		m.maps = maps;
	}
	e = ooms_attrib_write_memory(c->attrib, &m, path);
	free(sm);
	return e;
}

/* Under a memory crossing's line: the code that grew the memory most (by
 * culprit: each once, whatever stacks reach it), with its share of the
 * sampled bytes. */
void coll_memory_lines(const char *dir, const char *name)
{
	struct json_object *doc;
	struct run_memory m;
	char safe[512];

	if (run_memory_load(dir, name, &doc, &m))
		return;
	struct run_memory_culprit *c = NULL;
	size_t nc = 0;

	if (m.samples && run_memory_culprits(&m, &c, &nc) == 0) {
		for (size_t i = 0, said = 0; i < nc && said < 3; i++) {
			char b[32];

			if (!c[i].created_by || 100 * c[i].samples < m.samples)
				continue; /* unnamed, or under 1 %: memory.json has them */
			said++;
			coll_print("           grown by %s: %.0f%% of the %" PRIu64 " sampled faults (~%s, %s)\n",
				   text_term_safe(safe, sizeof(safe), c[i].created_by),
				   100.0 * (double)c[i].samples / (double)m.samples, m.samples,
				   units_bytes((double)c[i].bytes, b, sizeof(b)), run_memory_backing(c[i].anon, c[i].file, c[i].shared));
		}
		run_memory_culprits_free(c, nc);
	}
	run_memory_free(&m);
	json_object_put(doc);
}
