/* A snapshot built from what the collector already holds, not from /proc:
 * the kernel side's fd bitmap and thread set, as they stand now. Used when a
 * rule crosses between samples (a burst that exhausts a limit in 50 ms) and
 * at the target's death, when /proc has nothing left to show. What /proc can
 * still say (an fd's path, a thread's name) is read from it; the rest comes
 * from the creating calls and the last sample. */
#ifndef OOMSCOPE_COLLECTOR_HELD_H
#define OOMSCOPE_COLLECTOR_HELD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "collector/attrib/attrib.h"

struct ooms_held_sets {
	pid_t pid;
	const volatile uint64_t *fd_bits; /* the BPF fd bitmap (mmap-ed) */
	size_t fd_words;
	int threads_map_fd;               /* live_threads: tid -> u8 */
	int names_map_fd;                 /* dying_names: tid -> last comm, or -1 */
	struct ooms_attrib *attrib;
	const struct ooms_snapshot *last; /* the last /proc sample: names, maps, VmSize */
	size_t *unnamed;                  /* out, may be NULL: fds neither /proc, their
					   * creation event nor the last sample named */
};

/* Fills s (freed with ooms_snapshot_free). 0 or -ENOMEM. */
int ooms_held_snapshot(const struct ooms_held_sets *h, struct ooms_snapshot *s);

#endif
