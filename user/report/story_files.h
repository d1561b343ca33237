/* Each run-directory file's part of the story (story_files.c), as
 * run_files.c's rows name them. */
#ifndef OOMSCOPE_REPORT_STORY_FILES_H
#define OOMSCOPE_REPORT_STORY_FILES_H

#include "report/rundata.h"

struct story;
void story_death(struct story *s, const struct rundata *rd);
void story_failures(struct story *s, const struct rundata *rd);
void story_memory(struct story *s, const struct rundata *rd);
void story_allocs(struct story *s, const struct rundata *rd);
void story_fds(struct story *s, const struct rundata *rd);
void story_threads(struct story *s, const struct rundata *rd);

#endif
