/* liboomscope_shim.so: the in-process side of oomscope.
 *
 * Loaded into the target (a JVMTI agent: -agentpath at launch, the attach
 * protocol's `load` into a running HotSpot JVM, `cmd activity attach-agent`
 * on Android), it links no libc (user/shim/libc/), so one build loads on
 * glibc, bionic or musl. It serves, on a UNIX socket in the abstract
 * namespace named "oomscope-shim.<pid>" (pid as the target sees it; no file:
 * an Android app may write nowhere outside its data directory), from a
 * thread of the runtime's (JVMTI RunAgentThread), to root or the target's
 * own uid only (SO_PEERCRED):
 *
 *   ping                     -> ok oomscope-shim 2 runtime=<hotspot|art> pid=<pid>
 *   heap                     -> ok used=<bytes> committed=<bytes> max=<bytes>
 *   dump <path> [<mode> [strings=<n>]]
 *                            -> the shim creates <path> (0600, O_EXCL|O_NOFOLLOW,
 *                               via a temp name renamed when complete)
 *   dumpfd [<mode> [strings=<n>]]  + one fd (SCM_RIGHTS): writes into it
 *        both answer "started child=<pid> pause_ms=<ms>" at once, then, when the
 *        child has written everything, "done bytes_in=<n> bytes_out=<n>
 *        objects=<n> child_ms=<ms>" (or "error <why>"); a second dump while
 *        one runs gets "busy ...".
 *   javastacks [nostacks]    -> ok signal=<n>: the connection stays open and gets
 *        "js tid=<tid> sp=<hex> pc=<hex> frames=<Class.method(File.java:N)>;..."
 *        (or "... none=<why>") for each thread oomscope's kernel side signals
 *        with <n> at a native event (HotSpot: AsyncGetCallTrace, hs_jstack.h),
 *        and every second "pools direct_used=<bytes> direct_max=<bytes>"
 *        (java.nio.Bits's figures: asked here rather than by a request a
 *        second, whose accepted socket would be an fd event of the app's);
 *        nostacks: signal=0, the pools' line only
 *   armoom [<mode> [strings=<n>]]  + one fd: the next OutOfMemoryError
 *        of the Java heap is dumped into it from the throwing thread, before
 *        the throw (the heap at its fullest). Answers "armed"; the connection
 *        stays open and gets "oom kind=<heap|threads|other> thread=<name>
 *        what=<message> stack=<Class.method:line;...>" for every OOM the
 *        runtime reports (words with spaces are %20-escaped), then the
 *        dump's "started"/"done" as above. One-shot; a newer armoom replaces it.
 * mode: app (default) or koom; strings=<n>: char and byte arrays of at most n
 * bytes kept whole (default 1024; 0: none). What is written is plain hprof,
 * never compressed (protocol 2: the reader compresses, so the shim needs no
 * zlib or liblzma): on HotSpot the shim's own, stripped as it is written; on
 * ART the runtime's own DumpHeap output, which the reader strips (its header
 * says which). Everything but the fork happens in the child. */
#ifndef OOMSCOPE_SHIM_H
#define OOMSCOPE_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "shim/proto.h"


/* The agent's options (the text after '=' in -agentpath or attach-agent):
 * symbols oomscope found for the shim where the shim cannot read them
 * (ART's in .gnu_debugdata), "NAME=HEXVALUE" separated by commas. */
extern const char *shim_options;
/* Why init failed, for the one line the entry point logs. */
extern char shim_init_error[200];

struct shim_dump_req {
	int fd;              /* output, opened by the requester or the shim */
	char path[4096];     /* dump <path>: the final name ("" with dumpfd) */
	char tmp[4200];      /* dump <path>: the temp name written first */
	int op;              /* enum hprof_op: HPROF_OP_STRIP_APP / _KOOM */
	uint32_t text_bytes; /* char and byte arrays up to this size kept whole (String contents) */
	int jvmti_walk;      /* HotSpot: the child walks with JVMTI, not HotSpot's dumper */
	int at_oom;          /* the armed dump, at the throw: taken at once */
	int whole;           /* the reader strips: HotSpot's dumper writes straight to fd */
	int reply_fd;        /* the client's connection: the child answers "done" on it */
	int sync_fd;         /* the child reads one byte (or EOF) here before it answers, so
			      * "started" (from the parent) always comes first */
	int sync_wr;         /* the parent's end of sync_fd: the child closes its copy, so
			      * a parent that dies before "started" ends the wait (EOF) */
	char label[128];     /* what the dump is, for a "busy" answer while it runs */
	int done_fd;         /* the child writes one byte here once it has answered: it is
			      * exiting, and the next dump may wait for it (-1: none) */
};

struct shim_dump_result {
	pid_t child;         /* 0 when nothing was forked */
	double pause_ms;     /* how long the app was stopped (suspend/safepoint + fork) */
	char error[256];     /* set when the dump could not start */
};

/* A runtime the shim serves: how to start in it, read its heap and fork-dump
 * it. init: get what the runtime offers (live: loaded into a running VM) and
 * start the control socket; 0 or -1. heap: 0 or -errno. dump: start a
 * fork-dump; the child writes the dump to req->fd, answers on req->reply_fd
 * and _exits; 0, or -1 with res->error. vm is a JavaVM*. */
struct shim_runtime_ops {
	const char *name; /* "hotspot", "art" */
	int (*init)(void *vm, int live);
	int (*heap)(int64_t *used, int64_t *committed, int64_t *max);
	int (*dump)(const struct shim_dump_req *req, struct shim_dump_result *res);
	/* javastacks: the Java stacks of signalled threads reported on conn
	 * (taken), with the pools' figures each second; the signal number (0
	 * with no_stacks), or -1 with why. NULL: not on this runtime. */
	int (*javastacks)(int conn, int no_stacks, char *why, size_t why_len);
};

extern const struct shim_runtime_ops shim_hotspot_ops; /* hs_forkdump.c */
extern const struct shim_runtime_ops shim_art_ops;     /* art_forkdump.c */
/* The runtime this shim serves, set by the entry point that loaded it (NULL: none). */
extern const struct shim_runtime_ops *shim_ops;

/* Control socket and its thread (control.c), started from a thread the
 * runtime knows (it makes a Java thread). vm: a JavaVM*. 0 or -errno. */
int shim_control_start(void *vm);

/* Heap figures from java.lang.Runtime (used = total - free), the calling
 * thread attached to vm (a JavaVM*) as a daemon. 0 or -errno. */
int shim_jni_heap(void *vm, int64_t *used, int64_t *committed, int64_t *max);
/* Direct buffer memory from java.nio.Bits (HotSpot's class library), an
 * initialized class (the caller checks: reading its fields would
 * initialize it, running Java code in the app's full heap): bytes reserved
 * and -XX:MaxDirectMemorySize's limit. jni: a JNIEnv*, bits: its jclass.
 * 0 or -errno. */
int shim_jni_direct(void *jni, void *bits, int64_t *used, int64_t *max);

/* An OutOfMemoryError the runtime is about to throw (called from the
 * throwing thread): told on the armed connection, and for the Java heap
 * (heap != 0) the armed dump is made now. No-op when nothing is armed. */
void shim_oom_event(const char *kind, int heap, const char *what, const char *thread, const char *stack);

/* Helpers shared by the runtimes (child side). */
double shim_now_ms(void);
/* Writes one line on fd (the client's connection), ignoring errors. */
void shim_reply(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The child's last act: close the output, rename the temp file when it
 * came from `dump <path>`, answer "done"/"error" and _exit. */
void shim_child_finish(const struct shim_dump_req *req, int err, const char *why, uint64_t bytes_in,
		       uint64_t bytes_out, uint64_t objects, double start_ms) __attribute__((noreturn));
/* More "key=value" words for the child's "done" line (runtime specific). */
extern char shim_child_note[256];
/* Makes the forked child a plain process: default signal dispositions for
 * what the runtime catches, an alarm of secs as a last resort. */
void shim_child_setup(unsigned secs);

/* What a thread of this process is doing, from /proc/self/task/TID/syscall:
 * running (or not in a syscall), waiting with a timeout (HotSpot's VM thread
 * between operations waits so), or blocked without one (a lock whose owner
 * did not survive the fork, or a plain sleep). */
enum shim_task_state { SHIM_TASK_RUNNING, SHIM_TASK_WAIT_TIMED, SHIM_TASK_BLOCKED };
enum shim_task_state shim_task_state(pid_t tid);
/* That file's line ("NR arg0 ... sp pc", "running" or "-1 sp pc"); "" when unreadable. */
void shim_task_syscall(pid_t tid, char *buf, size_t len);

#endif
