/* Memory's growth by code (issue 45): the sampled page faults (EV_FAULT)
 * counted by the stack that touched the page, split by what backs the page
 * (anonymous memory, a mapped file, shared memory), and written with the
 * target's memory by category as memory.json or a crossing's memory-N.json. */
#define _GNU_SOURCE
#include "collector/attrib/attrib_int.h"
#include "run/memory.h"

#include <unistd.h>

#define FAULT_GROUPS_WRITTEN 200

static size_t slot_of(const struct ooms_attrib *a, uint32_t stack)
{
	return (size_t)(stack * 0x9e3779b1u) & (a->nfault_slots - 1);
}

static struct fault_group *fault_find(struct ooms_attrib *a, uint32_t stack, int create)
{
	if (a->nfault_slots && (a->nfaults + 1) * 2 > a->nfault_slots && create) {
		struct fault_group *old = a->faults;
		size_t n = a->nfault_slots;

		if ((a->faults = calloc(n * 2, sizeof(*a->faults)))) {
			a->nfault_slots = n * 2;
			a->nfaults = 0;
			for (size_t i = 0; i < n; i++)
				if (old[i].samples)
					*fault_find(a, old[i].stack, 1) = old[i], a->nfaults++;
			free(old);
		} else {
			a->faults = old;
		}
	}
	if (!a->nfault_slots) {
		if (!create || !(a->faults = calloc(256, sizeof(*a->faults))))
			return NULL;
		a->nfault_slots = 256;
	}
	for (size_t i = slot_of(a, stack);; i = (i + 1) & (a->nfault_slots - 1)) {
		if (a->faults[i].samples && a->faults[i].stack == stack)
			return &a->faults[i];
		if (!a->faults[i].samples) {
			if (!create || (a->nfaults + 1) * 4 > a->nfault_slots * 3)
				return NULL;
			a->faults[i].stack = stack;
			return &a->faults[i];
		}
	}
}

void ooms_attrib_fault(struct ooms_attrib *a, const struct ooms_event *e, enum ooms_backing backing, int java_heap)
{
	struct origin o = {0};
	struct fault_group *g;

	attrib_fill_origin(a, &o, e);
	a->fault_samples++;
	a->fault_period_pages = e->arg0;
	if (!(g = fault_find(a, o.stack, 1))) {
		a->fault_untracked++;
		return;
	}
	if (!g->samples) {
		a->nfaults++;
		memcpy(g->comm, e->comm, sizeof(g->comm));
		g->comm[sizeof(g->comm) - 1] = 0;
	}
	g->samples++;
	g->java_heap += java_heap != 0;
	if (backing == OOMS_BACK_FILE)
		g->file++;
	else if (backing == OOMS_BACK_SHARED)
		g->shared++;
	else
		g->anon++;
}

uint64_t ooms_attrib_fault_samples(const struct ooms_attrib *a)
{
	return a->fault_samples;
}

static int by_samples(const void *x, const void *y)
{
	const struct fault_group *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

struct memory_frames {
	struct ooms_attrib *a;
	const struct fault_group *g;
};

static void group_frames(struct json *j, size_t i, void *ctx)
{
	struct memory_frames *mf = ctx;

	ooms_attrib_write_frames(j, mf->a, mf->g[i].stack);
}

int ooms_attrib_write_memory(struct ooms_attrib *a, struct run_memory *m, const char *path)
{
	struct fault_group *g = NULL;
	struct run_memory_group *rg = NULL;
	char (*names)[256] = NULL;
	struct memory_frames mf = {a, NULL};
	struct atomic_file af;
	struct json j;
	size_t n = 0, shown;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int err;

	if (a->nfaults) {
		g = malloc(a->nfaults * sizeof(*g));
		if (!g)
			return -ENOMEM;
		for (size_t i = 0; i < a->nfault_slots; i++)
			if (a->faults[i].samples)
				g[n++] = a->faults[i];
		qsort(g, n, sizeof(*g), by_samples);
	}
	shown = n < FAULT_GROUPS_WRITTEN ? n : FAULT_GROUPS_WRITTEN;
	if (shown && (!(rg = calloc(shown, sizeof(*rg))) || !(names = calloc(shown, sizeof(*names))))) {
		free(g);
		free(rg);
		return -ENOMEM;
	}
	for (size_t i = 0; i < shown; i++) {
		rg[i] = (struct run_memory_group){
			.samples = g[i].samples, .anon = g[i].anon, .file = g[i].file, .shared = g[i].shared,
			.bytes = (int64_t)(g[i].samples * a->fault_period_pages * page),
			/* pages of the Java heap: what grew is the heap, whoever touched
			 * them (the app's allocations, the collector copying into
			 * fresh regions); the stack says who */
			.created_by = 2 * g[i].java_heap > g[i].samples ? RUN_MEMORY_JAVA_HEAP
				      : g[i].stack ? ooms_attrib_culprit_pc(a, g[i].stack, names[i], sizeof(names[i])) : NULL,
			.thread = g[i].comm[0] ? g[i].comm : NULL};
		if (!g[i].stack)
			rg[i].created_by = "(no stack)";
	}
	m->period_bytes = a->fault_period_pages * page;
	m->samples = a->fault_samples;
	m->groups = rg;
	m->ngroups = shown;
	mf.g = g;
	if (!(err = atomic_open(&af, path))) {
		json_init(&j, af.f, 1);
		run_memory_write(&j, m, group_frames, &mf);
		json_end_line(&j);
		err = atomic_commit(&af);
	}
	m->groups = NULL;
	m->ngroups = 0;
	free(names);
	free(rg);
	free(g);
	return err;
}
