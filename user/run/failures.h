/* failures.json, and a failure group wherever it is nested (the death's
 * last_failure, the timeline's failure records): calls that failed for
 * want of a resource, one group per call site. The writer (the collector's
 * failures.c hands it each group) beside the reader (the report, the lab's
 * store). Strings read point into the parsed object. */
#ifndef OOMSCOPE_RUN_FAILURES_H
#define OOMSCOPE_RUN_FAILURES_H

#include <stddef.h>
#include <stdint.h>
#include "run/frames.h"

struct json;
struct json_object;

struct run_fail_group {
	const char *kind;            /* "fds", "threads", "memory" */
	const char *syscall, *err;   /* "openat", "EMFILE" */
	int64_t kernel_stack_id;
	uint64_t count;
	int count_estimated;         /* one kernel key, several call sites: shared out */
	double t_first, t_last;      /* s since attach */
	uint64_t tid;
	const char *thread;
	/* what was open, by kind: fds_open (fds), threads and clone_flags
	 * (threads), bytes asked for (memory); -1 absent */
	int64_t fds_open, threads;
	int64_t clone_flags, bytes;
	const char *called_by;       /* its Java method or native caller; NULL unknown */
	/* read: its stack; the writer calls write_stacks (frames, Java
	 * frames) unless brief */
	struct run_frames frames;
	struct json_object *obj;     /* read: the group's object (run_java_frame) */
	void (*write_stacks)(struct json *j, void *ctx);
	void *stacks_ctx;
};

/* Its keys into the object the caller opened; brief: no stacks. */
void run_fail_group_write(struct json *j, const struct run_fail_group *g, int brief);
/* The timeline's failure record: the group's last failure's time, the
 * group (brief), and the file its first failure of a kind wrote (NULL:
 * none). */
void run_failure_record(struct json *j, const struct run_fail_group *g, const char *wrote);
/* 0 or -ENOMEM (frames). */
int run_fail_group_read(struct json_object *o, struct run_fail_group *g);
void run_fail_group_free(struct run_fail_group *g);

struct run_failures {
	uint64_t count;              /* failures in all, those only counted included */
	struct run_fail_group *groups; /* most first */
	size_t n;
};

/* failures.json: begin (its total), each group, end. */
void run_failures_begin(struct json *j, uint64_t count);
void run_failures_group(struct json *j, const struct run_fail_group *g);
void run_failures_end(struct json *j);
/* doc into out (allocated; run_failures_free). 0, -EINVAL or -ENOMEM. */
int run_failures_read(struct json_object *doc, struct run_failures *out);
void run_failures_free(struct run_failures *f);

#endif
