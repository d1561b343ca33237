/* memory.json (and a memory crossing's memory-N.json): the target's memory
 * by category (PSS and RSS, after `dumpsys meminfo`), its largest mappings,
 * the figure its rule watches against the limit that bounds it, the
 * system's memory then, and what grew it: the sampled page faults grouped
 * by the stack that touched the pages first. The writer takes the struct
 * the reader returns; a group's frames are written by a callback (the
 * collector's symbolizer names them) and read as their JSON object (run/frames.h).
 * Strings read point into the parsed object. */
#ifndef OOMSCOPE_RUN_MEMORY_H
#define OOMSCOPE_RUN_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include "detect/sample.h"

struct json;
struct json_object;

struct run_memory_cat {
	const char *category;        /* "native_heap" (proc/smaps.h's keys) */
	int64_t rss_kb, pss_kb, private_dirty_kb, anon_kb, swap_kb;
};

struct run_memory_map {
	uint64_t start, end;
	const char *perms, *name, *category;
	int64_t rss_kb, pss_kb, anon_kb, swap_kb;
};

struct run_memory_group {
	uint64_t samples;            /* sampled faults made by this stack */
	uint64_t anon, file, shared; /* of those, in anonymous memory, a mapped file, shared memory */
	int64_t bytes;               /* estimated: samples x the sampling period */
	const char *created_by;      /* the app's first frame */
	const char *thread;          /* the thread that touched them (the first seen) */
	struct json_object *obj;     /* read: the group, its "frames" (run_frames_read) */
};

/* The culprit of faults in a Java heap (its reservation, or a stack of the
 * runtime's own heap work: its collector copying into fresh regions): what
 * grew is the heap, whoever touched its pages; a heap dump says what holds
 * it. The report puts the heap's figures and the dumps' findings beside it. */
#define RUN_MEMORY_JAVA_HEAP "the Java heap"

/* The faults by culprit: the groups (one a stack) whose first frame of the
 * program's own code (created_by) is the same, as one: what a person reads
 * (a crossing's lines, the story, the store: one line or row a culprit),
 * each stack kept under it (memory.json's "culprits": the groups' indices). */
struct run_memory_culprit {
	const char *created_by;      /* NULL: no stack */
	uint64_t samples, anon, file, shared;
	int64_t bytes;
	size_t *stacks, nstacks;     /* indices into groups, the largest first */
};

struct run_memory {
	int64_t pid;
	double t;
	int target_alive;
	int64_t memory_kb, limit_kb;  /* the rule's figure and limit (RUN_NONE: unknown) */
	const char *limit_src;
	int64_t rss_kb;
	struct ooms_memfig fig;       /* the target's RSS by kind, the system's memory (run_memfig_from) */
	const char *cgroup;           /* the memory cgroup's path, NULL none */
	int64_t cgroup_limit_kb, cgroup_usage_kb;
	int has_categories;           /* smaps was read */
	struct run_memory_cat *cats;
	size_t ncats;
	int64_t pss_kb, smaps_rss_kb, smaps_swap_kb; /* smaps' totals */
	struct run_memory_map *maps;
	size_t nmaps;
	/* the sampled page faults: one sample every period_bytes of faults
	 * (0: not sampled), samples in all, lost (no room in the ring buffer) */
	uint64_t period_bytes, samples, lost;
	struct run_memory_group *groups;
	size_t ngroups;
};

/* The groups merged by culprit, the largest first: *out (free with
 * run_memory_culprits_free), *n of them. 0 or -ENOMEM. */
int run_memory_culprits(const struct run_memory *m, struct run_memory_culprit **out, size_t *n);
void run_memory_culprits_free(struct run_memory_culprit *c, size_t n);
/* "anonymous", "mapped file" or "shared memory": what most of the samples' pages were. */
const char *run_memory_backing(uint64_t anon, uint64_t file, uint64_t shared);

/* The whole file's object; frames(j, i, ctx) writes group i's "frames" key
 * and array. */
void run_memory_write(struct json *j, const struct run_memory *m,
		      void (*frames)(struct json *j, size_t group, void *ctx), void *ctx);
/* 0, -EINVAL (not a memory snapshot) or -ENOMEM; run_memory_free after. */
int run_memory_read(struct json_object *doc, struct run_memory *out);
void run_memory_free(struct run_memory *m);
/* The memory snapshot NAME of run directory DIR (memory.json or a
 * crossing's memory-N.json) read into *out; *doc holds its strings
 * (json_object_put it after run_memory_free). 0, or -1 when NAME names no
 * memory snapshot or it is absent or damaged. What the report, the store
 * and the collector's crossing lines read it through. */
int run_memory_load(const char *dir, const char *name, struct json_object **doc, struct run_memory *out);

#endif
