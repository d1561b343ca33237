/* Process trees (children.c): each process the target forks, held by the
 * kernel side at its first followed syscall (EV_CHILD_HELD), is given a
 * collector of its own. Its state is its own; the run's options, directory
 * and start are given. */
#ifndef OOMSCOPE_COLLECTOR_TREE_CHILDREN_H
#define OOMSCOPE_COLLECTOR_TREE_CHILDREN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/collector.h"
#include "collector/kernel/collect.h"

/* A child process watched by a collector of its own. */
struct coll_kid {
	pid_t target, collector;
	int ended;
	char name[64];
	char dir[4400];
};

struct coll_tree {
	/* given */
	const struct ooms_watch_opts *o;
	const char *dir;       /* the run directory */
	uint64_t start_ns;     /* when the watch began: lines are timed from it */
	/* its own */
	struct coll_kid *kids;
	size_t nkids, kids_cap;
	uint64_t kids_skipped, kids_forked;
};

/* EV_CHILD and EV_CHILD_HELD; the children's collectors that ended, said
 * (each sample); at the end, those left: waited for when the target ended
 * (until Ctrl-C or the duration), else stopped, each ending as a watch
 * does; its memory freed. */
void coll_children_event(struct coll_tree *t, const struct ooms_event *e);
void coll_children_reap(struct coll_tree *t);
void coll_children_finish(struct coll_tree *t, int target_ended);
void coll_children_free(struct coll_tree *t);
/* Under the target's row of the table: a row for each child watched (its
 * last sample, from its timeline), the CHILD_ROWS with most fds, and a
 * count of the rest. */
void coll_children_rows(struct coll_tree *t);

#endif
