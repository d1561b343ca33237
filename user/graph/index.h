/* The heap index: every object of a dump as a dense node number, with its
 * class, shallow size and outgoing references in CSR arrays, the class table
 * with field layouts and superclass chains, and the GC roots. Built in two
 * streaming passes over the file (plain, gzip or xz; whole or stripped), so
 * memory is a few dozen bytes per object whatever the dump's size.
 *
 * Node 0 is the virtual super-root; objects are 1..main_end in file order,
 * then the class objects (their static fields and loader are their
 * references) main_end+1..nodes-1 in id order. */
#ifndef OOMSCOPE_GRAPH_INDEX_H
#define OOMSCOPE_GRAPH_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "hprof/parser.h"
#include "util/u64map.h"
#include "util/spill.h"
#include "util/err.h"

#define OOMS_NONE UINT32_MAX

enum ooms_node_kind { NODE_ROOT, NODE_INSTANCE, NODE_OBJ_ARRAY, NODE_PRIM_ARRAY, NODE_CLASS };

/* Heaps, as Android names them; JVM dumps are all HEAP_DEFAULT. */
enum ooms_heap { HEAP_DEFAULT, HEAP_APP, HEAP_IMAGE, HEAP_ZYGOTE, HEAP_JIT, HEAP_OTHER };

struct ooms_field {
	uint32_t name;        /* string arena offset */
	uint8_t type;         /* enum hprof_type */
	uint32_t offset;      /* in the instance data (own class's block) */
};

/* A reference slot of an instance, flattened over the superclass chain. */
struct ooms_ref_slot {
	uint32_t offset;      /* in the instance data */
	uint32_t field;       /* index in the index's field table */
	uint32_t declared_in; /* class index that declares the field */
	uint8_t ignored;      /* a path mark (OOMS_MARK_*): --ignore, or a library leak's reference */
};

struct ooms_class {
	uint64_t id;
	uint32_t node;        /* the class object */
	uint32_t super;       /* class index, or OOMS_NONE */
	uint64_t loader_id;
	uint32_t loader;      /* the loader's node once the references are built; 0: the boot loader or none */
	uint32_t name;        /* string arena offset of the dotted name */
	uint32_t inst_size;   /* instance data bytes, from the class dump */
	uint32_t fields_at, nfields;   /* own instance fields */
	uint32_t statics_at, nstatics; /* static fields (in the static table) */
	uint32_t slots_at, nslots;     /* reference slots, all superclasses included */
	uint32_t weak_slot;   /* slot index of Reference.referent, or OOMS_NONE */
	uint8_t referent_late; /* a Reference that is not a Weak, Soft, Final or Phantom one (Dalvik's
				* FinalizerReference): its referent holds, but a path crosses it last */
	uint32_t probes_at, nprobes;   /* entries of cprobes that apply to instances */
	uint8_t is_array_class;
	uint8_t heap;         /* enum ooms_heap of the class object */
	/* filled by the analyzer */
	uint64_t count, shallow, retained;
};

/* A static object field of a class: its value is an edge of the class node. */
struct ooms_static {
	uint32_t name;
	uint64_t value;       /* the referenced id (object fields only are kept) */
	uint8_t ignored;      /* a path mark, as a slot's */
};

struct ooms_root {
	uint32_t node;
	uint8_t kind;         /* enum hprof_subtag of the root record */
	uint32_t thread_serial; /* JAVA_FRAME, JNI_LOCAL, NATIVE_STACK, THREAD_BLOCK, THREAD_OBJECT */
	int32_t frame;          /* JAVA_FRAME, JNI_LOCAL: frame depth, else -1 */
	uint32_t trace_serial;  /* THREAD_OBJECT: its stack trace's serial, else 0 */
};

/* A STACK_FRAME record: names as string ids (ooms_index_string_id). */
struct ooms_jframe {
	uint64_t id;
	uint64_t method, signature, source;
	uint32_t class_serial;
	int32_t line;            /* > 0 a line; 0 none; -1 unknown; -2 compiled; -3 native */
};

/* A STACK_TRACE record: its frames' ids are trace_frames[frames_at ..
 * frames_at + nframes), innermost first. */
struct ooms_trace {
	uint32_t serial, thread_serial;
	uint32_t frames_at, nframes;
	uint32_t declared;       /* frames the record says it has (more than nframes: cut) */
};

/* A HEAP_DUMP or HEAP_DUMP_SEGMENT record: where it lies and the objects
 * before it, so a later pass over a plain file can read only the records
 * that hold the objects it wants. */
struct ooms_heap_seg {
	uint64_t offset, bytes;      /* the whole record, tag byte first */
	uint32_t main_before;        /* objects (not class dumps) in earlier records */
	uint32_t class_before;       /* class dumps in earlier records */
};

struct ooms_index {
	struct hprof_header header;
	unsigned id_size;
	uint64_t file_bytes;     /* of the (decompressed) dump */
	unsigned threads;        /* as built (ooms_index_opts): 1, one thread for everything */

	/* nodes */
	uint32_t nodes;          /* including the super-root at 0 */
	uint32_t main_end;       /* the last node that is not a class object */
	uint64_t *ids;           /* [nodes] while indexing; then NULL when cids holds them */
	uint32_t *cids;          /* [nodes] (id - id_base) >> id_shift, when every id fits (ooms_index_id) */
	uint64_t id_base;
	unsigned id_shift;
	/* after the passes the ids wait in a file (read by ooms_index_id)
	 * instead of memory: the reports name a few objects;
	 * ooms_index_load_ids brings them all back */
	struct spill ids_file;
	/* per node, compact (read them with ooms_cls, ooms_kind, ooms_length,
	 * ooms_heap and ooms_class_of_node; ooms_index_set_nodes makes them) */
	uint16_t *cls16;         /* [nodes] class index (UINT16_MAX: none) when under 65535 classes */
	uint32_t *cls32;         /* [nodes] class index otherwise (arrays: their array class;
				  * primitive arrays: a pseudo-class; class objects: java.lang.Class) */
	uint8_t *kind2;          /* [nodes/64+1 blocks of 16 bytes] 2 bits a node: its kind, for 0..main_end */
	uint32_t *alen;          /* array lengths, arrays in node order */
	uint32_t *arank;         /* [nodes/64+1] arrays before each block of 64 nodes */
	uint32_t *class_node_class; /* [nodes - main_end - 1] class index of each class object */
	struct ooms_heap_run { uint32_t first; uint8_t heap; } *heap_runs; /* nodes 1..main_end */
	uint32_t nheap_runs;

	/* outgoing references, CSR: edges of n are tgt[off[n] .. off[n+1]) */
	uint32_t *off;           /* [nodes + 1] */
	uint32_t *tgt;           /* [nedges] */
	uint32_t nedges;
	uint64_t dangling;       /* references to ids not in the dump */
	uint64_t weak_refs;      /* Reference.referent edges */
	uint8_t *weak_last;      /* [nodes/8+1] bit n: the last edge of n is a Reference.referent */

	struct ooms_class *classes;
	uint32_t nclasses;
	uint32_t prim_class[12]; /* pseudo-class index by element type */
	uint32_t class_class;    /* java.lang.Class, or OOMS_NONE */
	struct ooms_field *fields;
	uint32_t nfields;
	struct ooms_static *statics;
	uint32_t nstatics;
	struct ooms_ref_slot *slots;
	uint32_t nslots;

	struct { uint32_t probe, offset; uint8_t type; } *cprobes;
	uint32_t ncprobes;

	struct ooms_root *roots;
	uint32_t nroots;

	struct ooms_heap_seg *segs;
	uint32_t nsegs;

	/* the references with a path mark: (from << 32 | to) + 1 -> the mark,
	 * and a bit per from node */
	struct u64map ignored;
	uint8_t *ignored_from;    /* NULL: none */
	/* GC roots marked by class: an instance of class (or a subclass) as a
	 * root is left out (OOMS_MARK_IGNORE) or taken last (a library mark) */
	struct { uint32_t cls; uint8_t mark; } *root_classes;
	uint32_t nroot_classes;
	/* the library leaks' references: what each is ("Class#field: why") */
	char **library;
	uint32_t nlibrary;

	/* stack traces, and the class serials their frames name */
	struct ooms_jframe *frames;
	uint32_t nframes;
	struct ooms_trace *traces;
	uint32_t ntraces;
	uint64_t *trace_frames;
	uint32_t ntrace_frames;
	struct u64map class_serials;  /* class serial + 1 -> arena offset of its name */

	/* strings (names): id -> arena offset */
	char *arena;
	size_t arena_len, arena_cap;
	struct u64map strings;

	/* id -> node: sorted ids with their nodes, and a bucket directory */
	uint64_t *sorted_ids;
	uint32_t *sorted_nodes;  /* NULL when ids[] is already sorted */
	uint32_t *bucket;        /* [nbuckets + 1] first position per bucket */
	unsigned bucket_shift;
	uint64_t min_id;
	uint32_t nbuckets;
	uint32_t lookup_n;       /* ids in the searched table (sorted copy, or ids[1..main_end]) */

	/* the size model (shallow.c) */
	uint32_t oop_scale_hint;  /* Unsafe.ARRAY_OBJECT_INDEX_SCALE, 0 if not in the dump */
	uint32_t oop_size;        /* bytes of a reference in the live heap (4: compressed oops) */
	uint32_t min_inst_size;   /* an object's header */
	int sizes_in_dump;        /* class dumps carry real instance sizes (java.lang.Object's is > 0) */
	uint32_t *inst_sizes;     /* [nclasses] instance size in this model */

	double seconds_pass1, seconds_pass2;
	uint64_t memory_estimate; /* ooms_memory_estimate of this dump (after pass 1) */
};

/* A field value the leak rules want: for every instance of class_name (or a
 * subclass), the value of field_name (declared there or in a superclass) is
 * recorded in pass 2. Object fields give the referenced node (OOMS_NONE for
 * null), primitive fields their raw big-endian value. */
struct ooms_probe_value {
	uint32_t node;
	uint64_t value;
};

struct ooms_probe {
	const char *class_name;  /* dotted, e.g. "android.app.Activity" */
	const char *field_name;
	uint8_t type;            /* out: the field's enum hprof_type, 0 if no class has it */
	struct ooms_probe_value *values;
	size_t count, cap;
};

/* Progress: called now and then with bytes read in the current pass. */
typedef void (*ooms_progress_fn)(void *ctx, int pass, uint64_t done, uint64_t total);

/* What the index reads besides the graph. */
struct ooms_index_opts {
	struct ooms_probe *probes;      /* field values to record (leak rules, thread names) */
	size_t nprobes;
	/* references to leave out of path finding, 'Class#field' (an instance
	 * field of Class and its subclasses, or a static field of Class) */
	const char *const *ignores;
	size_t nignores;
	/* references known to leak through no fault of the app, 'Class#field'
	 * (the built-in table's, then these): crossed last; what leaks only
	 * through one is a library leak */
	const char *const *library;
	size_t nlibrary;
	/* refuse (-EFBIG, before the second pass) a dump whose analysis would
	 * need more memory than this, by ooms_memory_estimate; 0: no limit */
	uint64_t max_memory;
	ooms_progress_fn progress;
	void *pctx;
	unsigned threads;               /* 1: the second pass on this thread alone; else in two
					 * halves on two threads where the file allows */
};

/* The analysis's peak memory, about, for a dump of this many objects and
 * references where little of the heap reaches a cycle (most heaps: see
 * dominators.h); measured peaks from 0.02 M to 21 M objects are below it. */
static inline uint64_t ooms_memory_estimate(uint64_t objects, uint64_t references)
{
	return (16ull << 20) + 24 * objects + 6 * references;
}
/* What Semi-NCA adds for the nodes that reach a cycle, at most. */
#define OOMS_MEMORY_PER_CYCLIC 28

/* Builds the index of the dump at path (plain, gzip or xz). 0, or a negative
 * errno with a one-line message in err. */
int ooms_index_build(struct ooms_index *ix, const char *path, const struct ooms_index_opts *o, struct ooms_err *err);
/* Path marks of a reference: none, left out (--ignore), or a library
 * leak's (OOMS_MARK_LIBRARY + its index in ix->library: crossed last). */
#define OOMS_MARK_NONE 0
#define OOMS_MARK_IGNORE 1
#define OOMS_MARK_LIBRARY 2

static inline uint32_t ooms_edge_mark(const struct ooms_index *ix, uint32_t u, uint32_t v)
{
	uint32_t mark;

	if (!ix->ignored_from || !(ix->ignored_from[u / 8] >> (u % 8) & 1) ||
	    !u64map_get(&ix->ignored, ((uint64_t)u << 32 | v) + 1, &mark))
		return OOMS_MARK_NONE;
	return mark;
}
/* The value probe p recorded for node n: 1 and *v, or 0 (values are in node order). */
int ooms_probe_get(const struct ooms_probe *p, uint32_t n, uint64_t *v);
/* The path mark of GC root record i (by its object's class), or OOMS_MARK_NONE. */
uint8_t ooms_root_mark(const struct ooms_index *ix, uint32_t i);
/* One pass of the parser over the dump at path (plain, gzip or xz), for
 * visitors that need the records again (see labels.c): read ahead on a
 * thread of its own unless threads is 1. 0 or -errno with err set. */
int ooms_read_dump(const char *path, const struct hprof_visitor *v, ooms_progress_fn progress, void *pctx,
		   int pass, unsigned threads, uint64_t *parsed, struct ooms_err *err);
/* 1 when the file at path is gzip or xz (its heap records' offsets are not
 * the file's), 0 when plain (or too short to tell), -errno. */
int ooms_dump_compressed(const char *path);
/* The dump's header, then its heap records segs[from, to) that want marks
 * (all when want is NULL), through a parser over v, read from a plain file
 * by offset; before(ctx, i) runs ahead of record i. 1 when the file is
 * compressed (its offsets are not the file's: read it whole), else 0 or
 * -errno with err set. */
int ooms_read_segments(const struct ooms_index *ix, const char *path, uint32_t from, uint32_t to, const uint8_t *want,
		       const struct hprof_visitor *v, void (*before)(void *ctx, uint32_t seg), void *ctx,
		       struct ooms_err *err);
void ooms_probes_free(struct ooms_probe *probes, size_t nprobes);
void ooms_index_free(struct ooms_index *ix);

uint64_t ooms_index_id_spilled(const struct ooms_index *ix, uint32_t n);
/* The id of node n. */
static inline uint64_t ooms_index_id(const struct ooms_index *ix, uint32_t n)
{
	if (ix->cids)
		return ix->id_base + ((uint64_t)ix->cids[n] << ix->id_shift);
	return ix->ids ? ix->ids[n] : ooms_index_id_spilled(ix, n);
}
/* Every id in memory again (after the passes they are in a file). 0 or -errno. */
int ooms_index_load_ids(struct ooms_index *ix);
/* Node n's class index, or OOMS_NONE. */
static inline uint32_t ooms_cls(const struct ooms_index *ix, uint32_t n)
{
	if (ix->cls16)
		return ix->cls16[n] == UINT16_MAX ? OOMS_NONE : ix->cls16[n];
	return ix->cls32[n];
}
static inline enum ooms_node_kind ooms_kind(const struct ooms_index *ix, uint32_t n)
{
	if (n > ix->main_end)
		return NODE_CLASS;
	return (enum ooms_node_kind)(ix->kind2[n / 4] >> (n % 4 * 2) & 3);
}
/* The elements of array n; 0 for what is not an array. */
uint32_t ooms_length(const struct ooms_index *ix, uint32_t n);
enum ooms_heap ooms_heap(const struct ooms_index *ix, uint32_t n);
/* The class index a class object stands for (n > main_end). */
static inline uint32_t ooms_class_of_node(const struct ooms_index *ix, uint32_t n)
{
	return ix->class_node_class[n - ix->main_end - 1];
}
/* The compact per-node arrays from plain ones over nodes 0..nodes-1
 * (ix->nodes and ix->main_end set): kind and heap by node; cls the class
 * index; length the elements of arrays and, for class objects, the class
 * index they stand for. 0 or -ENOMEM. */
int ooms_index_set_nodes(struct ooms_index *ix, const uint8_t *kind, const uint32_t *cls, const uint32_t *length,
			 const uint8_t *heap);

/* The node of object id, or OOMS_NONE. Only while the index is built: the
 * look-up table leaves with the ids. */
uint32_t ooms_index_find(const struct ooms_index *ix, uint64_t id);
/* The arena offset of string id, or OOMS_NONE. */
uint32_t ooms_index_string_id(const struct ooms_index *ix, uint64_t id);
/* A name from the arena ("" for none). */
static inline const char *ooms_index_str(const struct ooms_index *ix, uint32_t off)
{
	return off == OOMS_NONE ? "" : ix->arena + off;
}
static inline const char *ooms_class_name(const struct ooms_index *ix, uint32_t c)
{
	return c == OOMS_NONE ? "?" : ooms_index_str(ix, ix->classes[c].name);
}
/* The class index named name, or OOMS_NONE. */
uint32_t ooms_index_class_by_name(const struct ooms_index *ix, const char *name);
/* Is class c, or one of its superclasses, named name? */
int ooms_index_is_a(const struct ooms_index *ix, uint32_t c, const char *name);
/* Is edge e (an index in tgt) of node n a Reference.referent? */
static inline int ooms_edge_is_weak(const struct ooms_index *ix, uint32_t n, uint32_t e)
{
	return e + 1 == ix->off[n + 1] && (ix->weak_last[n / 8] >> (n % 8) & 1);
}

/* The object Reference node n refers to (its referent, its last edge), or OOMS_NONE. */
static inline uint32_t ooms_referent_of(const struct ooms_index *ix, uint32_t n)
{
	if (n >= ix->nodes || ix->off[n + 1] == ix->off[n] || !ooms_edge_is_weak(ix, n, ix->off[n + 1] - 1))
		return OOMS_NONE;
	return ix->tgt[ix->off[n + 1] - 1];
}

#endif
