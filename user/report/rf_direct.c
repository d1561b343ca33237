/* direct.json on the report side (its row in run_files.c): HotSpot's
 * direct buffer memory at the end by the code that made it: a line of the
 * story, a table on the page, its sites in the store beside the other
 * resources' groups. The first file added through the table: its reader
 * in run/direct.c, this row, the row's place in run_files.c. */
#define _GNU_SOURCE
#include "report/run_files.h"
#include "report/escape.h"
#include "report/store_int.h"
#include "report/story_out.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "run/direct.h"
#include "run/files.h"
#include "util/units.h"

#define DIRECT_SITES 10 /* rows on the page */

static int load(struct rundata *rd, struct json_object *doc, void **slot)
{
	struct run_direct *d = calloc(1, sizeof(*d));

	(void)rd;
	if (!d)
		return -1;
	if (run_direct_read(doc, d)) {
		run_direct_free(d);
		free(d);
		return -1;
	}
	*slot = d;
	return 0;
}

static void unload(struct rundata *rd, void *slot)
{
	(void)rd;
	if (slot)
		run_direct_free(slot);
	free(slot);
}

static int linked(const struct rundata *rd, const void *slot)
{
	(void)rd;
	return slot != NULL;
}

static void story(struct story *s, const struct rundata *rd, const void *slot)
{
	const struct run_direct *d = slot;
	char b[32], l[32];

	(void)rd;
	if (!d || !d->head.live_bytes)
		return;
	if (d->head.limit > 0)
		units_bytes((double)d->head.limit, l, sizeof(l));
	story_say(s, "direct buffer memory at the end: %s in %" PRIu64 " block%s%s%s%s", story_mb((double)d->head.live_bytes, b, sizeof(b)),
		  d->head.blocks, d->head.blocks == 1 ? "" : "s", d->head.limit > 0 ? " (MaxDirectMemorySize " : "",
		  d->head.limit > 0 ? l : "", d->head.limit > 0 ? ")" : "");
	for (size_t i = 0; i < d->nsites && i < STORY_PER_PART; i++)
		story_say(s, "  %9s in %" PRIu64 " <- %s", story_mb((double)d->sites[i].bytes, b, sizeof(b)), d->sites[i].blocks,
			  story_or(d->sites[i].created_by, "code unknown"));
}

static void page(FILE *f, const struct rundata *rd, const void *slot)
{
	const struct run_direct *d = slot;
	char b[32];

	(void)rd;
	if (!d)
		return;
	fprintf(f, "<h2>Direct buffer memory</h2>\n<p class=\"sub\">%s live in %" PRIu64 " block(s) at %.1f s, by the code "
		   "that made them (Unsafe.allocateMemory, followed by uprobes; " RUN_DIRECT ").</p>\n",
		units_bytes((double)d->head.live_bytes, b, sizeof(b)), d->head.blocks, d->head.t);
	if (!d->nsites)
		return;
	fprintf(f, "<table><tr><th>bytes</th><th>blocks</th><th>made by</th><th>thread</th></tr>\n");
	for (size_t i = 0; i < d->nsites && i < DIRECT_SITES; i++) {
		fprintf(f, "<tr><td class=\"n\">%s</td><td class=\"n\">%" PRIu64 "</td><td>",
			units_bytes((double)d->sites[i].bytes, b, sizeof(b)), d->sites[i].blocks);
		esc_html(f, d->sites[i].created_by ? d->sites[i].created_by : "-");
		fprintf(f, "</td><td>");
		esc_html(f, d->sites[i].creator_thread ? d->sites[i].creator_thread : "-");
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* a site a row of resource_groups, as a memory culprit is: its bytes as its count */
static int store(struct store *s, const struct rundata *rd, const char *run_id, const void *slot)
{
	const struct run_direct *d = slot;

	(void)rd;
	for (size_t i = 0; d && i < d->nsites; i++) {
		const struct run_direct_site *x = &d->sites[i];
		char sig[STORE_SIG_LEN + 1];

		store_sign("direct buffers", x->created_by ? &x->created_by : NULL, x->created_by ? 1 : 0, sig);
		if (store_insert(s, "resource_groups", run_id, STORE_TEXT(RUN_DIRECT), STORE_TEXT("direct"),
				 STORE_TEXT("direct buffers"), STORE_INT((int64_t)x->bytes), STORE_TEXT(sig),
				 STORE_TEXT(x->created_by), STORE_INT(x->created_by != NULL)))
			return -1;
	}
	return 0;
}

const struct rd_file rd_file_direct = {.name = RUN_DIRECT, .part = RD_BODY, .load = load, .free = unload,
				       .linked = linked, .story = story, .page = page, .store = store};
