/* Crossings, wherever found: on an fd, thread or failure event (the count
 * rules that need no history, decided here and acted on once the event is
 * handled) or on a sample (coll_sampling.c). Each writes its snapshot, the
 * record and its line; a rule keeps its first, largest and last
 * snapshots. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "run/files.h"
#include "run/records.h"
#include "run/timeline.h"

#include <errno.h>

/* Count rules that need no history, checked on each fd, thread or failure
 * event with the figure the kernel side had just after it: a burst that
 * exhausts a limit in 50 ms crosses, and its snapshot is taken, before the
 * process dies and the kernel closes everything. */
void coll_crossings_on_event(struct coll *c, const struct ooms_event *e)
{
	struct ooms_crossing xs[RULE_MAX];
	struct ooms_sample smp;
	const struct ooms_fail_group *g = e->type == EV_CALL_FAIL ? ooms_failures_last(c->fails) : NULL;
	int threads = e->type == EV_THREAD_NEW || (g && g->kind == FAIL_THREADS);
	size_t nx;

	if (!c->have_smp || (g && g->kind == FAIL_MEMORY))
		return;
	smp = c->last_smp;
	smp.t = e->ts_ns > c->start_ns ? (e->ts_ns - c->start_ns) / 1e9 : coll_since(c);
	smp.res[threads ? RES_THREADS : RES_FDS].value = e->live;
	nx = ooms_detect_feed_instant(&c->det, &smp, xs, RULE_MAX);
	for (size_t i = 0; i < nx && c->npending < RULE_MAX; i++)
		c->pending_xs[c->npending++] = xs[i];
	if (nx)
		c->pending_smp = smp;
}

/* The crossings events found (coll_crossings_on_event), acted on with the
 * kernel side's sets as they stand; the snapshot reads the ring again, and
 * crossings it brings wait their turn. */
void coll_crossings_pending(struct coll *c)
{
	struct ooms_snapshot s;

	for (int round = 0; c->npending && round < 4; round++) {
		struct ooms_crossing xs[RULE_MAX];
		struct ooms_sample smp = c->pending_smp;
		size_t n = c->npending;

		memcpy(xs, c->pending_xs, n * sizeof(xs[0]));
		c->npending = 0;
		if (coll_held_snapshot(c, &s) == 0) {
			coll_handle_crossings(c, &s, &smp, xs, n, "event");
			ooms_snapshot_free(&s);
		}
	}
}

/* Writes snapshot kind as DIR/name. */
int coll_write_snap(struct coll *c, const struct ooms_snapshot *s, enum ooms_snap kind, const char *name)
{
	char path[4200];
	int e;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	coll_java_perfmap(&c->java, 0, coll_target_ours(c) && !c->died);
	e = -EINVAL;
	/* every kind named (no default): a kind added to resource.h does not build until it is written here */
	switch (kind) {
	case SNAP_MEMORY:
		e = coll_write_memory(c, path);
		break;
	case SNAP_THREADS:
		e = ooms_attrib_write_threads(c->attrib, s, path);
		break;
	case SNAP_FDS:
		e = ooms_attrib_write_fds(c->attrib, s, path);
		break;
	case SNAP_VMSIZE:
		e = ooms_attrib_write_vmsize(c->attrib, s, path);
		break;
	case SNAP_MAX:
		break;
	}
	if (e == -EINVAL && ((unsigned)kind >= SNAP_MAX)) {
		/* a kind from a row this code has no writer for: nothing written, counted, the first said */
		if (!c->unknown.snap_kinds++) {
			c->unknown.snap_kind = (int)kind;
			coll_err("a snapshot of a kind this collector has no writer for (%d): %s not written, and such "
				 "snapshots counted to the end", (int)kind, path);
		}
		return e;
	}
	if (e)
		coll_err("cannot write %s: %s", path, strerror(-e));
	return e;
}

/* Writes snapshot kind as BASE.json (seq 0: the current view) or
 * BASE-SEQ.json (crossing seq); name gets the file's name. */
int coll_write_file(struct coll *c, const struct ooms_snapshot *s, enum ooms_snap kind, int seq, char *name,
		      size_t name_len)
{
	run_name_numbered(name, name_len, run_snapshot_file(kind), seq);
	return coll_write_snap(c, s, kind, name);
}

/* Removes crossing seq's snapshots of kind (and its allocs-SEQ.json). */
static void drop_snapshots(struct coll *c, enum ooms_snap kind, int seq)
{
	char path[4200], name[64];

	run_name_numbered(name, sizeof(name), run_snapshot_file(kind), seq);
	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	unlink(path);
	run_name_numbered(name, sizeof(name), RUN_ALLOCS, seq);
	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	unlink(path);
}

/* A rule's crossing seq wrote its snapshot with figure value: the rule
 * keeps its first, largest and last; the one these replace goes. */
static void keep_snapshot(struct coll *c, enum ooms_rule rule, enum ooms_snap kind, int seq, int64_t value)
{
	__typeof__(c->kept[0]) *k = &c->kept[rule];
	int prev_last = k->last, prev_largest = k->largest;

	if (!k->first) {
		k->first = k->largest = k->last = seq;
		k->largest_value = value;
		return;
	}
	if (value > k->largest_value) {
		k->largest = seq;
		k->largest_value = value;
	}
	k->last = seq;
	if (prev_last != k->first && prev_last != k->largest)
		drop_snapshots(c, kind, prev_last);
	if (prev_largest != k->largest && prev_largest != k->first && prev_largest != prev_last)
		drop_snapshots(c, kind, prev_largest);
}

/* Crossings found on a sample or on an event: the groups as they stand
 * (BASE-N.json) and the current view (BASE.json, rewritten at the end). */
void coll_handle_crossings(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp,
			     const struct ooms_crossing *xs, size_t nx, const char *seen_at)
{
	c->snap_smp = smp;
	for (size_t i = 0; i < nx; i++) {
		enum ooms_snap kind = ooms_resources[xs[i].rule / RK_MAX].snap; /* the resource's snapshot */
		char snap[64], path[4200], numbered[64], current[64];
		struct run_record rec = {.type = REC_CROSSING, .u.crossing = {
			.t = smp->t, .rule = ooms_rule_name(xs[i].rule), .value = xs[i].value, .limit = xs[i].limit,
			.reason = xs[i].reason, .seen_at = seen_at, .wrote = numbered}};
		struct run_crossing *cr = &rec.u.crossing;

		/* the groups as they stand at the crossing (fds-N.json), and the
		 * current view (fds.json, rewritten at the end) */
		if (coll_write_file(c, s, kind, coll_crossings(c) + 1, numbered, sizeof(numbered)) != 0)
			cr->wrote = NULL;
		coll_write_file(c, s, kind, 0, current, sizeof(current));
		/* a native target's "dump": its large allocations as they stand now */
		if (c->allocs && (!c->jheap || ooms_jheap_runtime(c->jheap) == OOMS_RT_NATIVE)) {
			run_name_numbered(snap, sizeof(snap), RUN_ALLOCS, coll_crossings(c) + 1);
			snprintf(path, sizeof(path), "%s/%s", c->dir, snap);
			if (ooms_allocs_write(c->allocs, path, c->start_ns) == 0)
				cr->allocs = snap;
		}
		coll_emit(c, run_record_body, &rec);
		if (!c->o->json) {
			coll_print("!! %s: %s -> %s/%s\n", ooms_rule_name(xs[i].rule), xs[i].reason, c->dir,
				   cr->wrote ? cr->wrote : current);
			coll_headline(c, "!! %s: %s -> %s/%s", ooms_rule_name(xs[i].rule), xs[i].reason, c->dir,
				      cr->wrote ? cr->wrote : current);
			if (kind == SNAP_MEMORY)
				coll_memory_lines(c->dir, cr->wrote ? cr->wrote : current);
		}
		c->crossings++;
		if (cr->wrote)
			keep_snapshot(c, xs[i].rule, kind, c->crossings + (c->jheap ? ooms_jheap_crossings(c->jheap) : 0),
				      xs[i].value);
	}
	c->snap_smp = NULL;
}
