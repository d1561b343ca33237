/* The Java heap watch, inside the collector: the runtime adapter for the
 * target (found from its mappings, again after an exec), its probes (GC
 * pauses, pools after each GC, OOM throws) on a ring buffer of their own,
 * the heap figures of every sample (hsperfdata; the shim; the pools), the
 * heap rule every --heap-interval, and the dumps it asks for, taken on a
 * thread so the collector keeps consuming events meanwhile. */
#ifndef OOMSCOPE_JHEAP_H
#define OOMSCOPE_JHEAP_H

#include <stdint.h>
#include <sys/types.h>
#include "dump/dumper.h"
#include "detect/heap_rule.h"
#include "detect/sample.h"
#include "runtime/runtime.h"

struct json;
struct ring_buffer;

struct ooms_jheap_opts {
	enum ooms_rt_kind runtime;           /* --runtime (OOMS_RT_AUTO) */
	int shim;                            /* --shim: load (watch) or use (run) the shim */
	int no_pool_rules;                   /* --no-pool-rules: Metaspace, class space, direct, GC distress */
	struct ooms_heap_rule_config rule;   /* --heap-rule and its figures */
	enum ooms_dump_method method;        /* --dump-method */
	int op, codec, level;                /* --dump-mode, codec */
	int no_strings;                      /* --no-strings: no char/byte array contents kept */
	int analyze;                         /* analyze each dump */
	uint64_t max_memory;                 /* --max-memory: each analysis refuses a dump needing more (0: no bound) */
	const char *const *leak_classes;
	size_t nleak_classes;
	const char *const *leak_ifs;
	size_t nleak_ifs;
	const char *btf_path;
	int verbose;
};

/* How the collector lets the watch speak: a record for the timeline (and
 * --json), and a line for the terminal (NULL with --json). */
struct ooms_jheap_io {
	void *ctx;
	void (*emit)(void *ctx, void (*body)(struct json *j, void *arg), void *arg);
	void (*say)(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	/* a line about the watch itself (what could not be attached or loaded):
	 * the terminal's stderr; never NULL */
	void (*note)(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	double (*now)(void *ctx); /* seconds since attach */
	void (*thread_name)(void *ctx, uint32_t tid, const char *name); /* a Java thread's full name */
	void (*progress)(void *ctx, const char *what); /* a dump's phases, for a terminal (may be NULL) */
	/* A pool's crossing (rule): a snapshot of what holds the pool, written
	 * into the run directory (direct memory: its allocating call sites), its
	 * file's name in name; 0, or -1 for none. May be NULL. */
	int (*pool_snapshot)(void *ctx, const char *rule, int64_t limit, char *name, size_t len);
	/* The runtime was found and its probes attached, just before its
	 * runtime record is written (the collector attaches its own then). May be NULL. */
	void (*found)(void *ctx);
};

struct ooms_jheap;

struct ooms_jheap *ooms_jheap_new(pid_t pid, const struct ooms_jheap_opts *o, const char *dir,
				  const struct ooms_jheap_io *io);
void ooms_jheap_free(struct ooms_jheap *j);
/* Finds the runtime and attaches its probes to rb (once found; call until
 * it is): 0, or -1 on a failure worth stopping for (message said). */
int ooms_jheap_attach(struct ooms_jheap *j, struct ring_buffer *rb);
/* The target loads the shim itself (run --shim: -agentpath in
 * JAVA_TOOL_OPTIONS): it is waited for, never attach-loaded, however long
 * the JVM takes to open its socket. */
void ooms_jheap_shim_preloaded(struct ooms_jheap *j);
/* The runtime found ("native" until then). */
enum ooms_rt_kind ooms_jheap_runtime(const struct ooms_jheap *j);
/* Its library as the target maps it (libjvm.so, libart.so), "" until found. */
const char *ooms_jheap_lib(const struct ooms_jheap *j);
/* HotSpot's direct buffer memory limit as last sampled (-1: not known). */
int64_t ooms_jheap_direct_limit(const struct ooms_jheap *j);
/* Fills the sample's heap fields. */
void ooms_jheap_sample(struct ooms_jheap *j, struct ooms_sample *s);
/* Runs the heap rule on the sample when its interval has passed, starting
 * a dump when it says so. */
void ooms_jheap_check(struct ooms_jheap *j, const struct ooms_sample *s);
/* An fd that becomes readable when a dump finished; then call _done. */
int ooms_jheap_fd(const struct ooms_jheap *j);
void ooms_jheap_done(struct ooms_jheap *j);
/* At the end of the run: waits (at most wait_s) for a dump in progress. */
void ooms_jheap_finish(struct ooms_jheap *j, int wait_s);
/* OutOfMemoryErrors the runtime raised: how many, and the last one's time,
 * message, thread and the dump taken at its throw (NULL if none). */
int ooms_jheap_last_oom(const struct ooms_jheap *j, double *t, const char **msg, const char **thread,
			const char **dump);
/* Figures for the end record. */
int ooms_jheap_dumps(const struct ooms_jheap *j);
int ooms_jheap_crossings(const struct ooms_jheap *j); /* heap rule crossings */
int ooms_jheap_busy(const struct ooms_jheap *j);      /* a dump is being taken */
/* Direct buffer memory as the shim read it (bytes; -1: unknown), for the next samples. */
void ooms_jheap_note_direct(struct ooms_jheap *j, int64_t used, int64_t max);
uint64_t ooms_jheap_drops(const struct ooms_jheap *j);
/* Unsafe.allocateMemory blocks the kernel side could not follow, or -1 when not followed. */
int64_t ooms_jheap_unsafe_untracked(const struct ooms_jheap *j);
uint64_t ooms_jheap_events(const struct ooms_jheap *j);
/* Events of a type or version this collector does not know: dropped. */
uint64_t ooms_jheap_unknown_events(const struct ooms_jheap *j);

#endif
