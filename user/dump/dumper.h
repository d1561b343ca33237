/* Heap dumps of a target, by the best means it offers (their analysis is
 * fresh.h's, called by whoever asked for the dump):
 *   shim: the shim's fork-dump (the app pauses for the fork only); the file
 *         is created here (0600, O_EXCL|O_NOFOLLOW) and passed to the shim,
 *         and renamed into place only when the shim says "done";
 *   jvm:  no shim in a HotSpot JVM: its own dumper (`GC.heap_dump -overwrite`
 *         through the attach protocol) writing into a FIFO that is stripped
 *         as it streams; compressed afterwards (the app is paused while the
 *         JVM writes, so the reader must keep up);
 *   am:   no shim in an Android app: `am dumpheap`, then stripped (untested
 *         here: no device).
 * Synchronous; the collector runs it on a thread of its own. */
#ifndef OOMSCOPE_DUMPER_H
#define OOMSCOPE_DUMPER_H

#include <stdint.h>
#include <sys/types.h>
#include "runtime/runtime.h"

enum ooms_dump_method { DUMP_AUTO = 0, DUMP_SHIM, DUMP_JVM, DUMP_AM };

struct ooms_dump_request {
	pid_t pid;
	enum ooms_rt_kind runtime;
	enum ooms_dump_method method;  /* AUTO: the shim when it answers, else the runtime's own */
	const char *out_path;          /* the dump file (its directory must exist) */
	int op;                        /* HPROF_OP_STRIP_APP or HPROF_OP_STRIP_KOOM */
	int codec, level;              /* enum hprof_codec, level */
	uint32_t text_bytes;           /* char and byte arrays up to this size kept whole (HPROF_TEXT_BYTES; 0: none) */
	int timeout_s;                 /* the dump at most (0: 1800) */
	void (*status)(void *ctx, const char *what); /* progress words, may be NULL */
	void *sctx;
};

struct ooms_dump_result {
	int ok;
	const char *method;            /* "shim-fork", "jvm-fifo", "am-dumpheap" */
	double pause_ms;               /* the app's pause: the forks (shim), or the whole dump (jvm) */
	int attempts;                  /* forks made (shim: a stalled walk is retried), else 1 */
	double dump_ms;                /* request to complete file */
	uint64_t bytes_in, bytes_out;  /* hprof bytes produced, file bytes */
	uint64_t objects;
	double child_ms;               /* shim: the forked copy's time, fork to file written */
	char walk[16];                 /* shim on HotSpot: "hotspot" (its dumper in the copy) or "jvmti" */
	char forked_at[16];            /* HotSpot's dumper: "gc_end" (a GC pause's end) or "heap_walk" */
	int target_exited;             /* the target was gone at the end */
	/* shim: cgroup hierarchies the child was moved to the root of, of
	 * those mounted (it outlives its app's cgroup being killed or frozen);
	 * child_moved_err: -errno when none took it */
	int child_moved, child_cgroups, child_moved_err;
	/* the target was frozen (a cached Android app): thawed for the dump
	 * (where), frozen again after (refrozen), or left running (why) */
	int thawed, refrozen;
	char thaw_where[300], refreeze_note[160];
	char error[320];
	char oom_kind[16];             /* the armed dump: what ran out, as the shim said ("heap", "direct", "metaspace") */
};

/* 0 when the dump was written (res->ok); -errno otherwise, res->error says
 * why in one line. A target frozen by a cgroup freezer is thawed for the
 * dump and frozen again after (proc/freezer.h), or refused in one line when
 * it cannot be thawed. */
int ooms_dump_take(const struct ooms_dump_request *rq, struct ooms_dump_result *res);
/* The last-chance dump: arms the shim (armoom) to fork-dump the heap into
 * rq->out_path from the thread whose allocation fails, before the
 * OutOfMemoryError is thrown; then waits, passing each "oom ..." line of the
 * shim (and the "started ..." one) to on_line, until the dump is written (0), the
 * connection closes, or cancel_fd becomes readable (-ECANCELED). Keeps
 * asking until the shim's socket is there. Blocking: run it on a thread. */
int ooms_dump_armed(const struct ooms_dump_request *rq, struct ooms_dump_result *res, int cancel_fd,
		    void (*on_line)(void *ctx, const char *line), void *ctx);
int ooms_dump_method_parse(const char *s); /* -1 unknown */

#endif
