/* The snapshot files: threads.json and fds.json (and their crossings'
 * threads-N.json, fds-N.json, the failures' *-at-failure.json): a
 * resource's members grouped (threads by name, fds by kind), each group's
 * creation stacks; and vmsize.json (the largest mappings, each with the
 * big mmaps seen inside it). The writer's pieces (the collector's
 * attrib_write.c calls them for the head, each group with its extras,
 * each stack; vmsize.json's head, mappings and origins) beside the reader
 * of the groups (the report, the lab's store). Strings read point into the
 * parsed object. */
#ifndef OOMSCOPE_RUN_SNAPSHOT_H
#define OOMSCOPE_RUN_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "detect/resource.h"

struct json;
struct json_object;

struct run_snap_stack {
	uint64_t count;              /* members made by it */
	const char *unknown;         /* why no stack ("existed at attach"); NULL when it has one */
	const char *created_by;      /* the app's first frame, Java or native */
	const char *creator_thread;
	const char *syscall;         /* fds: the call that made them */
	const char *start_routine;   /* threads: the start routine's symbol */
	struct json_object *obj;     /* read: its frames (run_frames_read, run_frames_for_signature) */
};

struct run_snap_group {
	const char *name;            /* threads: the name; fds: the kind */
	uint64_t count;
	struct run_snap_stack *stacks;
	size_t nstacks;
};

struct run_snapshot {
	enum ooms_snap kind;
	int64_t pid;
	double t;
	int target_alive;
	int64_t members, limit;      /* threads and thread_limit, fds and fd_limit */
	struct run_snap_group *groups;
	size_t ngroups;
};

/* The writer's pieces: the head (opens the object and the groups), a
 * group (opens it: the writer adds its extras, then its stacks), the
 * stacks, the end. */
void run_snapshot_begin(struct json *j, enum ooms_snap kind, int64_t pid, double t, int alive, int64_t members,
			int64_t limit);
/* vmsize.json's head (no groups: its largest mappings follow, the writer's) */
void run_snapshot_head(struct json *j, int64_t pid, double t, int alive);
void run_snap_group_begin(struct json *j, enum ooms_snap kind, const char *name, uint64_t count);
void run_snap_stacks_begin(struct json *j);
/* A stack (opened: the caller writes its Java stack, start routine and
 * frames after, then run_snap_stack_end). */
void run_snap_stack_write(struct json *j, const struct run_snap_stack *s);
void run_snap_stack_end(struct json *j);
void run_snap_start_routine_key(struct json *j);
void run_snap_group_end(struct json *j); /* ends the stacks and the group */
void run_snapshot_end(struct json *j);

/* A group's extras, after run_snap_group_begin: a thread name's folded
 * names as they are ("examples"); an fd kind's values and their counts
 * (files' paths, sockets' families: run_snap_counts_begin, a
 * run_snap_count each, run_snap_list_end); files' path patterns, each
 * with its count and examples. */
void run_snap_examples(struct json *j, const char *const *names, size_t n);
enum run_snap_counted { RUN_SNAP_PATHS, RUN_SNAP_FAMILIES };
void run_snap_counts_begin(struct json *j, enum run_snap_counted what);
void run_snap_count(struct json *j, enum run_snap_counted what, const char *value, uint64_t count);
void run_snap_patterns_begin(struct json *j);
void run_snap_pattern(struct json *j, const char *pattern, uint64_t count, const char *const *examples, size_t n);
void run_snap_list_end(struct json *j);

/* vmsize.json: the head (opens the largest mappings), a mapping (opens its
 * origins), an origin (the caller writes its frames, then closes it with
 * run_snap_origin_end), the ends. */
struct run_vmsize_head {
	int64_t pid, vmsize_kb, vmpeak_kb;
	double t;
	int alive;
	uint64_t mappings_total;
	uint64_t mappings_replayed; /* 0: read from /proc; else that reading replayed with the events since */
	int replay_partial;         /* some of the events since were lost */
};
struct run_vmsize_map {
	uint64_t start, end;
	const char *perms, *path; /* path: NULL for an anonymous one */
};
struct run_vmsize_origin {
	uint64_t count, mapped_bytes;
	const char *syscall, *thread, *created_by;
};
void run_vmsize_begin(struct json *j, const struct run_vmsize_head *h);
void run_vmsize_map_begin(struct json *j, const struct run_vmsize_map *m);
void run_vmsize_origin_begin(struct json *j, const struct run_vmsize_origin *o);
void run_vmsize_origin_end(struct json *j);
void run_vmsize_map_end(struct json *j);
void run_vmsize_end(struct json *j);

/* doc (threads.json or fds.json parsed) into out (allocated;
 * run_snapshot_free). 0, -EINVAL or -ENOMEM. */
int run_snapshot_read(struct json_object *doc, enum ooms_snap kind, struct run_snapshot *out);
void run_snapshot_free(struct run_snapshot *s);
/* The snapshot file NAME of run directory DIR (a crossing's or a failure's,
 * or the end's), its kind told by its name, read into *out; *doc holds its
 * strings (json_object_put it after run_snapshot_free). 0, or -1 when NAME
 * names no threads or fds snapshot, or the file is absent (not kept) or no
 * snapshot. What the report and the lab's store read crossings through. */
int run_snapshot_load(const char *dir, const char *name, struct json_object **doc, struct run_snapshot *out);

#endif
