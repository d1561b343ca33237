/* direct.json (and direct-N.json at a direct-memory crossing): HotSpot's
 * direct buffers' memory (Unsafe.allocateMemory blocks still live) by the
 * code that made it. The writer's pieces (the collector's attrib_direct.c
 * hands it the head and each site, and writes a site's Java stack and
 * frames between run_direct_site_begin and _end), and its reader (the
 * report's row for it: report/run_files.c). */
#ifndef OOMSCOPE_RUN_DIRECT_H
#define OOMSCOPE_RUN_DIRECT_H

#include <stddef.h>
#include <stdint.h>

struct json;
struct json_object;

struct run_direct_head {
	int64_t pid;
	double t;                   /* s since attach */
	uint64_t live_bytes, blocks;
	int64_t limit;              /* MaxDirectMemorySize; -1 unknown */
	uint64_t untracked;         /* blocks past the kernel side's table */
	uint64_t sites_total;       /* sites in all (the file holds the largest) */
};

struct run_direct_site {
	uint64_t bytes, blocks;
	const char *created_by;     /* NULL: no stack */
	const char *creator_thread; /* NULL: unknown */
	struct json_object *obj;    /* read: the site as parsed (its frames, java_stack) */
};

/* direct.json read (strings owned by the parsed document). */
struct run_direct {
	struct run_direct_head head;
	struct run_direct_site *sites;
	size_t nsites;
};

void run_direct_begin(struct json *j, const struct run_direct_head *h);
void run_direct_site_begin(struct json *j, const struct run_direct_site *s);
void run_direct_site_end(struct json *j);
void run_direct_end(struct json *j);
/* 0, or -EINVAL (not direct.json), -ENOMEM. */
int run_direct_read(struct json_object *o, struct run_direct *d);
void run_direct_free(struct run_direct *d);

#endif
