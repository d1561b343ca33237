/* The heap index (index.h): pass 1 collects names, classes, roots and the
 * object table; pass 2, with every class layout known, reads the references.
 * This file drives the passes (its helpers and look-ups are in index_core.c,
 * below them). */
#include "graph/index_build.h"
#include "util/hugemem.h"
#include "util/memtrace.h"
#include "util/spill.h"
#include "util/clock.h"
#include <sys/stat.h>

static int run_pass(struct build *b, const char *path, const struct hprof_visitor *v, ooms_progress_fn progress,
		    void *pctx)
{
	return ooms_read_dump(path, v, progress, pctx, b->pass, b->ix->threads, &b->ix->file_bytes, b->err);
}

/* After the passes nothing looks objects up by id, and only the reports
 * need a few ids: the ids (4 or 8 bytes a node) go to a file and the
 * look-up table goes, the largest part of the index left. Where no file
 * can be written (a full disk) they stay. The file is written during
 * pass 2 (spill_start), which reads the ids without changing them. */
static void spill_ids(struct ooms_index *ix)
{
	if (spill_finish(&ix->ids_file)) /* begun with pass 2, on the idle core */
		return;
	free(ix->cids);
	free(ix->ids);
	free(ix->sorted_ids);
	free(ix->sorted_nodes);
	free(ix->bucket);
	ix->cids = NULL;
	ix->ids = NULL;
	ix->sorted_ids = NULL;
	ix->sorted_nodes = NULL;
	ix->bucket = NULL;
}

int ooms_index_build(struct ooms_index *ix, const char *path, const struct ooms_index_opts *o, struct ooms_err *err)
{
	struct ooms_probe *probes = o->probes;
	size_t nprobes = o->nprobes;
	ooms_progress_fn progress = o->progress;
	void *pctx = o->pctx;
	struct build b = {.ix = ix, .probes = probes, .nprobes = nprobes, .err = err,
			  .ignores = o->ignores, .nignores = o->nignores, .library = o->library, .nlibrary = o->nlibrary, .max_memory = o->max_memory};
	struct hprof_visitor v1 = {.ctx = &b, .header = ixb_p1_header, .record_begin = ixb_rec_begin,
				   .record_data = ixb_rec_data, .record_end = ixb_rec_end, .sub_begin = ixb_p1_sub};
	double t0 = mono_s();
	int e;

	memset(ix, 0, sizeof(*ix));
	ooms_err_clear(err);
	ix->class_class = OOMS_NONE;
	ix->threads = o->threads;
	{
		struct stat st;

		if (!stat(path, &st) && ooms_dump_compressed(path) == 0)
			b.node_hint = (size_t)st.st_size / 14 + 1024;
	}
	if (u64map_init(&ix->strings, 1024) || u64map_init(&b.load_names, 1024) ||
	    u64map_init(&ix->class_serials, 1024) ||
	    ixb_add_node(&b, 0, NODE_ROOT, 0, 0)) {
		e = ixb_fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	b.pass = 1;
	if ((e = run_pass(&b, path, &v1, progress, pctx)))
		goto out;
	memtrace("pass1");
	if ((e = ixb_between_passes(&b)))
		goto out;
	ix->seconds_pass1 = mono_s() - t0;
	b.heaps = (struct hprof_heap_count){0, 0};
	b.later_dump = 0;
	t0 = mono_s();
	ix->off = huge_malloc(((size_t)ix->nodes + 1) * sizeof(*ix->off));
	if (!ix->off) {
		e = ixb_fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	ix->off[0] = 0;
	ix->weak_last = huge_calloc((size_t)ix->nodes / 8 + 1, 1);
	if (!ix->weak_last) {
		e = ixb_fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	b.pass = 2;
	if (b.edges_hint && (b.tgt = huge_malloc(b.edges_hint * sizeof(*b.tgt))))
		b.edges_cap = b.edges_hint;
	if (ix->cids)
		spill_start(&ix->ids_file, ix->cids, sizeof(*ix->cids), ix->nodes);
	else
		spill_start(&ix->ids_file, ix->ids, sizeof(*ix->ids), ix->nodes);
	if ((e = ixb_pass2(&b, path, progress, pctx)))
		goto out;
	/* class objects: their static fields, and their loader (VisualVM and
	 * MAT count that edge too) */
	for (uint32_t n = ix->main_end + 1; n < ix->nodes; n++) {
		const struct ooms_class *c = &ix->classes[ooms_class_of_node(ix, n)];

		ix->off[n] = b.nedges;
		for (uint32_t i = 0; i < c->nstatics && !e; i++) {
			uint32_t before = b.nedges;

			e = ixb_add_edge(&b, ix->statics[c->statics_at + i].value);
			if (!e && ix->statics[c->statics_at + i].ignored && b.nedges > before)
				e = ixb_ignore_edge(&b, n, b.tgt[before], ix->statics[c->statics_at + i].ignored);
		}
		if (!e) {
			uint32_t before = b.nedges;

			e = ixb_add_edge(&b, c->loader_id);
			if (!e && b.nedges > before)
				ix->classes[ooms_class_of_node(ix, n)].loader = b.tgt[before];
		}
		if (e)
			goto out;
	}
	/* the references are the index's now */
	ix->off[ix->nodes] = b.nedges;
	ix->tgt = huge_realloc(b.tgt, ((size_t)b.nedges + 1) * sizeof(*ix->tgt)); /* give back the growth slack */
	if (!ix->tgt)
		ix->tgt = b.tgt;
	b.tgt = NULL;
	ix->nedges = b.nedges;
	ix->dangling = b.dangling;
	ix->weak_refs = b.weak_refs;
	for (size_t i = 0; i < b.nmarks && !e; i++)
		e = ixb_ignore_edge(&b, b.marks[i].u, b.marks[i].v, b.marks[i].mark);
	if (e)
		goto out;
	spill_ids(ix);
	ix->seconds_pass2 = mono_s() - t0;
	memtrace("pass2");
out:
	free(b.tgt);
	free(b.marks);
	free(b.cls_ids);
	free(b.kind);
	free(b.heap_of);
	free(b.length);
	free(b.cls);
	free(b.load_keys);
	free(b.rroots);
	free(b.data);
	u64map_free(&b.load_names);
	if (e)
		ooms_index_free(ix);
	return e;
}

void ooms_index_free(struct ooms_index *ix)
{
	spill_close(&ix->ids_file);
	free(ix->ids);
	free(ix->cids);
	free(ix->cls16);
	free(ix->cls32);
	free(ix->kind2);
	free(ix->alen);
	free(ix->arank);
	free(ix->class_node_class);
	free(ix->heap_runs);
	free(ix->off);
	free(ix->tgt);
	free(ix->classes);
	free(ix->fields);
	free(ix->statics);
	free(ix->slots);
	free(ix->cprobes);
	free(ix->roots);
	free(ix->arena);
	free(ix->inst_sizes);
	free(ix->weak_last);
	free(ix->sorted_ids);
	free(ix->sorted_nodes);
	free(ix->bucket);
	u64map_free(&ix->strings);
	u64map_free(&ix->class_serials);
	u64map_free(&ix->ignored);
	free(ix->ignored_from);
	free(ix->root_classes);
	for (uint32_t i = 0; i < ix->nlibrary; i++)
		free(ix->library[i]);
	free(ix->library);
	free(ix->frames);
	free(ix->traces);
	free(ix->trace_frames);
	free(ix->segs);
	memset(ix, 0, sizeof(*ix));
}
