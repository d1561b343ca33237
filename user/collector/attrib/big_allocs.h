/* Large single allocations (--big-alloc): every one the BPF side reports,
 * with its thread, function, size and stack, and whether it was freed (when
 * return probes give addresses). Written as allocs.json, printed live, and
 * grouped by stack for the text view. */
#ifndef OOMSCOPE_COLLECTOR_ALLOCS_H
#define OOMSCOPE_COLLECTOR_ALLOCS_H

#include <stdint.h>
#include <stdio.h>
#include "collector/kernel/collect.h"
#include "collector/attrib/attrib.h"

struct ooms_alloc_rec {
	uint64_t ts_ns;
	uint64_t bytes;
	uint64_t addr;      /* 0 when not known */
	uint32_t tid;
	uint32_t stack;     /* interned in the attrib's stack table */
	uint8_t fn;         /* enum ooms_alloc_fn */
	uint8_t state;      /* ALLOC_LIVE, ALLOC_FREED, ALLOC_UNKNOWN */
	char comm[OOMS_COMM_LEN];
};

enum { ALLOC_UNKNOWN, ALLOC_LIVE, ALLOC_FREED };

struct ooms_allocs;

/* mode: enum ooms_alloc_mode; live: return probes; depth: frames kept. */
struct ooms_allocs *ooms_allocs_new(struct ooms_attrib *a, uint64_t threshold, int mode, int live, unsigned depth);
void ooms_allocs_free(struct ooms_allocs *al);
/* An EV_BIG_ALLOC (struct ooms_alloc_event) or EV_ALLOC_FREE event of size
 * bytes: the record it made or changed, or NULL. */
const struct ooms_alloc_rec *ooms_allocs_event(struct ooms_allocs *al, const struct ooms_event *e, size_t size);
const char *ooms_alloc_fn_name(unsigned fn);
/* One line for the terminal: "big alloc 40.0 MB malloc in worker-1 (tid 12) <- load_image (app)". */
void ooms_allocs_line(struct ooms_allocs *al, const struct ooms_alloc_rec *r, char *buf, size_t len);
/* The record as a JSON object (for --json lines): t_seen, seconds since
 * attach when it was read; t, when it was made (start_ns: attach, in the
 * kernel's monotonic clock). */
void ooms_allocs_json(struct json *j, struct ooms_allocs *al, const struct ooms_alloc_rec *r, double t,
		      uint64_t start_ns);
/* allocs.json: settings, every record, and the groups by stack (count,
 * total bytes, largest first), frames in crash-log form. 0 or -errno. */
int ooms_allocs_write(struct ooms_allocs *al, const char *path, uint64_t start_ns);
/* The text view: groups by stack with count and bytes, largest total
 * first, at most top of them; with frames, each group's stack in crash-log
 * form under it. 0 or -errno. */
int ooms_allocs_text(struct ooms_allocs *al, FILE *f, size_t top, int frames);
/* allocs.txt: the text view of every group with its frames. 0 or -errno. */
int ooms_allocs_write_text(struct ooms_allocs *al, const char *path);
/* Report fn under another name (an alias in the target's libc). */
void ooms_allocs_alias(struct ooms_allocs *al, unsigned fn, const char *name);

#endif
