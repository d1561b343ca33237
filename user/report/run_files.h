/* The run directory's files as the report side knows them: one row each,
 * with how it is loaded and freed (rundata), its part of the story
 * (story.c), of report.html (html.c: its section and its link) and of the
 * lab's store (store_rows.c). Those walk this table rather than name the
 * files. A new run-directory file is its reader-writer in run/ and a row
 * here (its parts beside it, in a file of their own or in run_files.c);
 * its data lives in rundata's slot for the row (rundata_slot). */
#ifndef OOMSCOPE_REPORT_RUN_FILES_H
#define OOMSCOPE_REPORT_RUN_FILES_H

#include <stdio.h>
#include "report/rundata.h"

struct json_object;
struct story;
struct store;

/* Where a file's part goes in the story and on the page: with how it
 * ended, among the findings, or with the groups at the end. */
enum rd_part { RD_HEAD, RD_BODY, RD_TAIL };

struct rd_file {
	const char *name;      /* run/files.h's, or its module's */
	enum rd_part part;
	/* the parsed file read into rd (its typed fields, or *slot for a file
	 * rundata has no field for); 0 when taken. NULL: not read (a file the
	 * report makes, or one only linked) */
	int (*load)(struct rundata *rd, struct json_object *doc, void **slot);
	void (*free)(struct rundata *rd, void *slot);
	/* whether the page links it (NULL: when the file is in the directory) */
	int (*linked)(const struct rundata *rd, const void *slot);
	/* its part of the story, its section of the page, its rows in the
	 * store (each NULL: none); each says nothing when the run lacks it.
	 * slot: what load put there (NULL when it did not, or the file is absent) */
	void (*story)(struct story *s, const struct rundata *rd, const void *slot);
	void (*page)(FILE *f, const struct rundata *rd, const void *slot);
	int (*store)(struct store *s, const struct rundata *rd, const char *run_id, const void *slot);
};

/* The rows, NULL-terminated, in the order the story and the page tell them. */
extern const struct rd_file *const rd_files[];

/* Whether report.html links the file. */
int rd_file_linked(const struct rundata *rd, const struct rd_file *f);
/* Each row's part of the story, the page and the store, for one part. */
void rd_files_story(struct story *s, const struct rundata *rd, enum rd_part part);
void rd_files_page(FILE *f, const struct rundata *rd, enum rd_part part);
/* Every row's rows; 0 or -1. */
int rd_files_store(struct store *s, const struct rundata *rd, const char *run_id);

#endif
