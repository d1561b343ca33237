/* /proc/PID/maps, parsed once for everyone who reads it: the snapshots, the
 * runtime detection and the symbolizer. */
#ifndef OOMSCOPE_PROC_MAPS_H
#define OOMSCOPE_PROC_MAPS_H

#include <stdint.h>
#include <sys/types.h>

struct proc_map_line {
	uint64_t start, end, offset, inode;
	unsigned dev_major, dev_minor;
	char perms[8];     /* "r-xp" */
	const char *path;  /* the file, "[heap]", "[stack]"...; "" for anonymous memory */
};

/* Calls fn for each mapping in order; a nonzero return from fn stops the
 * walk and is returned. 0 at the end, or -errno when the file cannot be
 * read (the process is gone). */
int proc_maps_each(pid_t pid, int (*fn)(void *ctx, const struct proc_map_line *m), void *ctx);

#endif
