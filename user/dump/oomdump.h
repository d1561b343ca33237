/* The last-chance dump, kept armed on a thread of its own for the whole
 * run: the shim dumps the heap from the thread whose allocation fails,
 * before the OutOfMemoryError is thrown (ooms_dump_armed). The collector's
 * loop is told through notify_efd when the shim reports an OOM and when
 * the dump is done, and takes both from here on its own thread. */
#ifndef OOMSCOPE_COLLECTOR_OOMDUMP_H
#define OOMSCOPE_COLLECTOR_OOMDUMP_H

#include <stddef.h>
#include "dump/dumper.h"
#include "dump/fresh.h"

#define OOMDUMP_LINE 1024

struct ooms_oomdump;

/* Starts the thread; rq and arq (and the strings they point to) must
 * outlive it. arq: the dump's analysis, on the same thread once it is
 * written (NULL: none). NULL when the thread cannot start. */
struct ooms_oomdump *ooms_oomdump_start(const struct ooms_dump_request *rq, const struct ooms_fresh_request *arq,
					int notify_efd);
/* 1 once, when the shim has armed the dump (it answered "armed"), else 0. */
int ooms_oomdump_newly_armed(struct ooms_oomdump *d);
/* The shim's "oom ..." lines since the last call, oldest first: how many
 * were copied into out (the rest wait). */
size_t ooms_oomdump_lines(struct ooms_oomdump *d, char (*out)[OOMDUMP_LINE], size_t max);
/* 1 while the dump is being written (after the OOM), 2 when the thread is
 * done (*res and *ares filled, once), 0 while armed. */
int ooms_oomdump_state(struct ooms_oomdump *d, struct ooms_dump_result *res, struct ooms_fresh_result *ares);
/* 1 while the dump is being written. */
int ooms_oomdump_writing(struct ooms_oomdump *d);
/* Ends the thread: waits up to wait_s for a dump being written, else
 * disarms at once. Its result and lines stay to be taken. */
void ooms_oomdump_stop(struct ooms_oomdump *d, int wait_s);
void ooms_oomdump_free(struct ooms_oomdump *d);

#endif
