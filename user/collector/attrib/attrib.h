/* Attribution: who created each live thread, fd and large mapping.
 *
 * Fed the ring buffer's events (stacks repaired and interned), and joined at
 * snapshot time with what /proc says is live: the latest creation event of an
 * fd number is the one that made the fd now open under that number. Writes
 * threads.json, fds.json and vmsize.json. */
#ifndef OOMSCOPE_ATTRIB_H
#define OOMSCOPE_ATTRIB_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "collector/kernel/collect.h"
#include "collector/kernel/syscall_table.h"
#include "proc/proc_snapshot.h"
#include "sym/symbolize.h"

struct ooms_attrib;

struct ooms_attrib *ooms_attrib_new(pid_t pid, enum ooms_arch arch, struct ooms_symbolizer *sym);
void ooms_attrib_free(struct ooms_attrib *a);

/* One event from the ring buffer. */
void ooms_attrib_event(struct ooms_attrib *a, const struct ooms_event *e);
/* The runtime's full name for thread tid (a Java thread's, which the kernel
 * cuts to 15 characters); thread groups use it. NULL or "" forgets it. */
void ooms_attrib_thread_name(struct ooms_attrib *a, uint32_t tid, const char *name);
/* What /proc/PID/fd/FD would have said, guessed from the call that made fd
 * ("socket:[?]", "anon_inode:[eventfd]", "/? (opened by openat; ...)"), for
 * fds whose process is gone. Returns buf, or NULL when no call made fd since
 * attach. */
const char *ooms_attrib_fd_guess(struct ooms_attrib *a, int fd, char *buf, size_t len);
/* Threads and fds that were there at attach have no creation event. */
void ooms_attrib_mark_preexisting(struct ooms_attrib *a, const struct ooms_snapshot *s);

/* Write the three files from a snapshot (atomically: temp file + rename). 0 or -errno. */
int ooms_attrib_write_threads(struct ooms_attrib *a, const struct ooms_snapshot *s, const char *path);
int ooms_attrib_write_fds(struct ooms_attrib *a, const struct ooms_snapshot *s, const char *path);
int ooms_attrib_write_vmsize(struct ooms_attrib *a, const struct ooms_snapshot *s, const char *path);

/* One-line summaries of the largest groups, for the end-of-run message:
 * "20 x worker-pool  <- start_worker_pool (thread_target)". Returns lines written. */
int ooms_attrib_summary(struct ooms_attrib *a, const struct ooms_snapshot *s, char *buf, size_t len);

uint64_t ooms_attrib_events(const struct ooms_attrib *a);
/* The fds of s made while watched whose creation event never came: "creation
 * event not received" in fds.json, counted in the end record. */
size_t ooms_attrib_fds_without_event(const struct ooms_attrib *a, const struct ooms_snapshot *s);

/* A Java stack the shim reported for the thread tid stopped at sp, pc
 * (the event that asked for it says the same): frames "Class.method(File.java:N)"
 * separated by ';', or NULL when the thread had none. */
void ooms_attrib_java_report(struct ooms_attrib *a, uint32_t tid, uint64_t sp, uint64_t pc, const char *frames);
/* Events whose Java stack was asked and has not come yet. */
/* A thread started before the shim's connection, with the Java frames of
 * the thread that started it (the shim's "jt" line): they become its
 * creation's Java stack unless it has one. 1 when taken, 0 when not (a
 * thread not known, gone, or with its own answer). */
int ooms_attrib_java_thread_started(struct ooms_attrib *a, uint32_t tid, const char *frames);
/* An fd opened from Java before the shim's connection (its "jf" line): the
 * opener's frames become the fd's creation's Java stack when the kernel's
 * open of that fd was by thread tid and returned at most
 * OOMS_JAVA_FD_MATCH_NS before ns (both CLOCK_MONOTONIC), and it has none.
 * 1 when taken. */
#define OOMS_JAVA_FD_MATCH_NS 50000000ull
int ooms_attrib_java_fd_opened(struct ooms_attrib *a, int64_t fd, uint32_t tid, uint64_t ns, const char *frames);
size_t ooms_attrib_java_pending(const struct ooms_attrib *a);
/* Of those, the ones whose event came at or before until_ns (monotonic). */
size_t ooms_attrib_java_pending_until(const struct ooms_attrib *a, uint64_t until_ns);
/* Asks never answered and reports whose event never came, so far. */
uint64_t ooms_attrib_java_unmatched(const struct ooms_attrib *a);
/* Java class prefixes that are the platform's: a group is named by the first
 * Java frame outside them (NULL: java., jdk., sun., android., androidx.,
 * kotlin., kotlinx., com.android.internal., dalvik., libcore.). A
 * NULL-terminated list that outlives a; keep_default: these and the default. */
void ooms_attrib_java_platform(struct ooms_attrib *a, const char *const *prefixes, int keep_default);

/* A failed call's Java stack, by its thread and time (ev.ts_ns): JS state
 * (0: none asked) and, when reported, *jstack for the two below. */
int ooms_attrib_java_of_call(const struct ooms_attrib *a, uint32_t tid, uint64_t ts_ns, uint32_t *jstack);
/* Whom a Java stack names: the app's first frame (else the first), or NULL
 * when the state is not "reported with frames". */
const char *ooms_attrib_java_culprit(struct ooms_attrib *a, int jstate, uint32_t jstack, char *buf, size_t len);
/* A JSON object's java_frames (the frames reported) or java_stack (why
 * there are none); nothing when none was asked. */
struct json;
void ooms_attrib_write_java(struct json *j, struct ooms_attrib *a, int jstate, uint32_t jstack);

/* The target runs a Java runtime (HotSpot, ART): frames in its anonymous
 * executable memory are Java code, named by the symbolizer's perf map when
 * it has one. kind: 0 (none), or which runtime. */
enum { ATTRIB_JAVA_HOTSPOT = 1, ATTRIB_JAVA_ART = 2 };
void ooms_attrib_java_runtime(struct ooms_attrib *a, int kind);

/* For other recorders of events with stacks (allocs.c): the event's stack,
 * repaired (through slice, a copy of the stack from e->sp) and cut to depth
 * frames (0: all), interned; its frames in
 * crash-log form as a "frames" JSON array; its first frame outside libc. */
struct json;
uint32_t ooms_attrib_stack(struct ooms_attrib *a, const struct ooms_event *e, const uint64_t *slice,
			   size_t nslice, unsigned depth); /* slice NULL: the event's own */
/* The same through a deep slice, scanning for return addresses where the
 * CFI walk stops (see ooms_stackfix_repair_scan); all frames. */
uint32_t ooms_attrib_stack_scan(struct ooms_attrib *a, const struct ooms_event *e, const uint64_t *slice,
				size_t nslice);
void ooms_attrib_write_frames(struct json *j, struct ooms_attrib *a, uint32_t stack);
const char *ooms_attrib_culprit(struct ooms_attrib *a, uint32_t stack, char *buf, size_t len);
/* The same for a stack whose first frame is the code itself (a sampled
 * page fault's pc), not a call's return into it. */
const char *ooms_attrib_culprit_pc(struct ooms_attrib *a, uint32_t stack, char *buf, size_t len);
/* The stack's frames in crash-log form, one "INDENT#NN text" line each. */
void ooms_attrib_print_frames(FILE *out, struct ooms_attrib *a, uint32_t stack, const char *indent);

/* Direct buffers' memory (HotSpot's Unsafe.allocateMemory blocks made
 * since attach and not freed, attrib_direct.c): live bytes, *blocks, and
 * *untracked, the blocks past the table. */
uint64_t ooms_attrib_direct_live(const struct ooms_attrib *a, uint64_t *blocks, uint64_t *untracked);
/* Blocks made since attach (0: none seen, so no direct.json). */
uint64_t ooms_attrib_direct_seen(const struct ooms_attrib *a);
/* direct.json, or a crossing's direct-N.json: the live blocks grouped by
 * the code that made them (its Java stack when the shim reported one),
 * largest first; t seconds since attach; limit MaxDirectMemorySize or -1.
 * Atomically. 0 or -errno. */
int ooms_attrib_write_direct(struct ooms_attrib *a, double t, int64_t limit, const char *path);
/* The largest top sites, a line each ("64 MB in 64 blocks <- PoolLeaker.step(PoolLeaker.java:50)"),
 * separated by newlines in buf. Returns the lines. */
int ooms_attrib_direct_lines(struct ooms_attrib *a, size_t top, char *buf, size_t len);

/* Memory's growth by code (attrib_faults.c): a sampled page fault (EV_FAULT)
 * and what backs its page; the samples so far; memory.json or a crossing's
 * memory-N.json at path: m (the head: figures, categories, mappings) with
 * the groups of stacks that touched the most pages. 0 or -errno. */
struct run_memory;
/* java_heap: the page is in the Java heap's reservation (the collector tells) */
void ooms_attrib_fault(struct ooms_attrib *a, const struct ooms_event *e, enum ooms_backing backing, int java_heap);
uint64_t ooms_attrib_fault_samples(const struct ooms_attrib *a);
int ooms_attrib_write_memory(struct ooms_attrib *a, struct run_memory *m, const char *path);

#endif
