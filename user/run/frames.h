/* A native stack's frames and a Java stack's frames as every run-directory
 * file holds them ("frames": [{addr, module, base, offset, symbol, ...}],
 * "java_frames": ["Class.method(File.java:N)", ...]): the writer beside the
 * reader, so the collector, the report, pprof, the lab's store and
 * `oomscope symbolize` name each key once, here. Strings read point into
 * the parsed object, valid while it lives. */
#ifndef OOMSCOPE_RUN_FRAMES_H
#define OOMSCOPE_RUN_FRAMES_H

#include <stddef.h>
#include <stdint.h>

struct json;
struct json_object;

struct run_frame {
	uint64_t addr;
	const char *module;          /* NULL: in no module (base and offset then 0) */
	uint64_t base, offset;       /* the module's load address, the frame's offset in it */
	const char *symbol;          /* NULL: unnamed */
	const char *demangled;       /* C++: the symbol for people; NULL when the same */
	int64_t sym_offset;          /* from the symbol's start; -1 none */
	int jit;                     /* named by a JIT's perf map */
	const char *build_id;        /* the module's GNU build id, hex; NULL none */
	const char *text;            /* "symbol+0x12 (module+0x3f0)": the frame for people */
	char label[240];             /* read: as the terminal names it: "Thread_native_entry(Thread*) (libjvm.so)",
				      * else "libc.so.6+0x891f5", else the address (run_frame_read) */
};

struct run_frames {
	struct run_frame *v;
	size_t n;
};

/* The "frames" key and its array opened: run_frame_write each, then
 * json_arr_end. */
void run_frames_open(struct json *j);
/* One frame, as an object (the array's element). */
void run_frame_write(struct json *j, const struct run_frame *f);
void run_frame_read(struct json_object *o, struct run_frame *f);
/* obj's "frames" array into out (allocated; run_frames_free). A missing or
 * damaged array reads as none. 0 or -ENOMEM. */
int run_frames_read(struct json_object *obj, struct run_frames *out);
void run_frames_free(struct run_frames *f);

/* "java_frames": the Java stack, innermost first, from a ';'-joined list
 * (the shim's javastacks line). */
void run_java_frames_write(struct json *j, const char *joined);
/* "java_stack": why a native event has no Java frames ("none (not in
 * Java code)", "asked, not reported"). */
void run_java_stack_missing(struct json *j, const char *why);
/* obj's "java_frames" array: its length, and its i-th frame. */
size_t run_java_frames_count(struct json_object *obj);
const char *run_java_frame(struct json_object *obj, size_t i);
/* obj's frames array to sign a stack by: its Java frames where it has
 * them, else its native frames; NULL none (store_rows.c's signatures). */
struct json_object *run_frames_for_signature(struct json_object *obj);
/* The name a signature uses for element i of such an array: a Java
 * frame's text, a native frame's symbol (else its module's base name). */
const char *run_frames_sig_name(struct json_object *arr, size_t i, int *is_module);

/* `oomscope symbolize`: a frame object's module, offset, build id and
 * text (0; -1 for one without an offset), what was found for it offline
 * written into it, and every frames array of a document walked. */
struct run_frame_found {
	const char *symbol, *demangled; /* demangled: NULL when the same */
	uint64_t sym_offset;
	const char *file;               /* NULL: no line found */
	int line;
	const char *from;               /* the file it was read from */
	const char *text;               /* the frame's new text */
};
int run_frame_module_offset(struct json_object *frame, const char **module, uint64_t *offset, const char **build_id,
			    const char **text);
void run_frame_set_found(struct json_object *frame, const struct run_frame_found *found);
void run_frames_walk(struct json_object *doc, void (*fn)(struct json_object *frames, void *ctx), void *ctx);

#endif
