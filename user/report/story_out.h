/* The story's writer and what its parts share (story.c's frame, and each
 * run-directory file's part, story_files.c): a line at a time, at most
 * STORY_LINES, the last saying what was left out. */
#ifndef OOMSCOPE_REPORT_STORY_OUT_H
#define OOMSCOPE_REPORT_STORY_OUT_H

#include <stddef.h>
#include <stdio.h>
#include "run/snapshot.h"

#define STORY_LINES 40
#define STORY_PER_PART 3 /* items a part lists */

struct story {
	FILE *f;
	int lines, cut;
};

void story_say(struct story *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* bytes as a person reads them (util/units.h) */
const char *story_mb(double bytes, char *buf, size_t len);
/* s, or why when it is NULL or empty */
const char *story_or(const char *s, const char *why);
/* A snapshot's largest groups, at equal counts the ones whose code is
 * named first; a runtime's own threads said in the last line. */
void story_snapshot_groups(struct story *s, const struct run_snapshot *snap, const char *indent);

#endif
