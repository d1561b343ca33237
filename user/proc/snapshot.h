/* What /proc shows of one process at one moment: its threads (with their
 * names), open fds (with their link targets), mappings and status. The
 * collector samples it every interval; attribution joins it with who
 * created what. */
#ifndef OOMSCOPE_PROC_SNAPSHOT_H
#define OOMSCOPE_PROC_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What /proc showed at one moment. */
struct snap_thread { int tid; char comm[16]; };
struct snap_fd { int fd; char target[256]; };
struct snap_map { uint64_t start, end; char perms[5]; char path[256]; };
struct ooms_snapshot {
	double t;          /* seconds since attach */
	int alive;
	struct snap_thread *threads; size_t nthreads;
	struct snap_fd *fds; size_t nfds;
	struct snap_map *maps; size_t nmaps;
	int64_t vmsize_kb, vmpeak_kb, thread_limit, fd_limit;
};

/* Reads /proc into s (threads, fds, maps, status). 0 or -errno (target gone). */
int ooms_snapshot_take(pid_t pid, struct ooms_snapshot *s);
/* fn(ctx) is called every 1,024 threads or fds a snapshot reads (tens of ms
 * at 10 us an entry): the collector drains its ring buffer there, so a long
 * read of a large target does not leave it full. NULL: none. */
void ooms_snapshot_set_tick(void (*fn)(void *ctx), void *ctx);
void ooms_snapshot_free(struct ooms_snapshot *s);
/* "socket", "pipe", "anon_inode:[eventfd]", "/dev/ashmem", "file", ... */
const char *ooms_fd_kind(const char *target, char *buf, size_t len);

#endif
