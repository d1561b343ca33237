/* Stream transforms built on the parser and the writer:
 *   strip:   drop what leak analysis does not need, by mode;
 *   restore: turn a stripped file back into a standard hprof.
 * Each is a visitor; hprof_transform_visitor() sets it up. */
#ifndef OOMSCOPE_HPROF_TRANSFORM_H
#define OOMSCOPE_HPROF_TRANSFORM_H

#include <stdint.h>
#include "hprof/idset.h"
#include "hprof/parser.h"
#include "hprof/writer.h"

/* What a strip keeps of primitive arrays by default, whatever the mode:
 * char and byte arrays of at most this many bytes, whole. Every String's
 * contents live in one (char[] before JDK 9 and on Android before 8, byte[]
 * after), so names, keys and small values stay readable; larger buffers
 * and other element types are what make dumps big. */
#define HPROF_TEXT_BYTES 1024

enum hprof_op {
	HPROF_OP_STRIP_APP,    /* default: every object kept; primitive array contents dropped, lengths kept */
	HPROF_OP_STRIP_KOOM,   /* as KOOM: also drops zygote and image heap objects entirely */
	HPROF_OP_STRIP_MATRIX, /* as Matrix: keeps String contents and one copy of identical Bitmap buffers */
	HPROF_OP_RESTORE,
};

struct hprof_transform {
	enum hprof_op op;
	struct hprof_writer *w;
	unsigned id_size;
	uint32_t rec_time;
	int drop_heap;          /* koom: current heap is zygote or image */
	int keep_payload;       /* current sub-record's payload goes out */
	uint64_t zero_left;     /* restore: zero bytes owed to the current array */
	const struct hprof_idset *keep_arrays; /* matrix: primitive arrays kept whole */
	uint32_t text_bytes;    /* char and byte arrays up to this size kept whole (0: none) */
	uint64_t objects;       /* instance and array records read */
	uint64_t dropped_objects, stripped_arrays, kept_arrays, kept_text;
	/* a segmented dump (HEAP_DUMP_SEGMENT) is whole only with its
	 * HEAP_DUMP_END: a writer that stopped between records leaves none */
	int segmented, heap_ended;
};

/* Sets v to run t. keep_arrays only for matrix (may be NULL otherwise).
 * t->text_bytes starts at HPROF_TEXT_BYTES; set it to 0 for the smallest file. */
void hprof_transform_visitor(struct hprof_transform *t, enum hprof_op op, struct hprof_writer *w,
			     const struct hprof_idset *keep_arrays, struct hprof_visitor *v);
const char *hprof_op_mode(enum hprof_op op); /* "app", "koom", "matrix", "restore" */

#endif
