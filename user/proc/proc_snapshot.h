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
/* an fd and where its link's target starts in the snapshot's fd_text (the
 * targets at 256 bytes each were most of the collector's memory at 500,000
 * fds): ooms_snap_fd_target() */
struct snap_fd { int fd; uint32_t target; };
struct snap_map { uint64_t start, end; char perms[5]; char path[256]; };
struct ooms_snapshot {
	double t;          /* seconds since attach */
	int alive;
	struct snap_thread *threads; size_t nthreads;
	struct snap_fd *fds; size_t nfds, fds_cap;
	char *fd_text; size_t fd_text_len, fd_text_cap; /* the targets, each ended by a NUL */
	struct snap_map *maps; size_t nmaps;
	int64_t vmsize_kb, vmpeak_kb, thread_limit, fd_limit;
	uint64_t maps_ns;  /* CLOCK_MONOTONIC just before the maps were read */
	size_t maps_replayed; /* large mmaps and munmaps applied since (the target gone before a reading) */
	int maps_replay_partial; /* some of those were not kept: the replay is short of them */
};

/* One large mapping change the kernel side saw (EV_MMAP_BIG, EV_MUNMAP_BIG). */
struct map_change {
	uint64_t ts_ns, addr, len;
	int unmap;
};

/* Applies changes (in order; those older than s->maps_ns are skipped) to
 * s's maps, as the kernel would: an unmap cuts its range out, a map
 * replaces what was there and joins an anonymous read-write neighbour.
 * Counts what was applied in s->maps_replayed. 0 or -ENOMEM. */
int ooms_snapshot_replay_maps(struct ooms_snapshot *s, const struct map_change *ch, size_t n);

/* The i-th fd's link target. */
static inline const char *ooms_snap_fd_target(const struct ooms_snapshot *s, size_t i)
{
	return s->fd_text + s->fds[i].target;
}
/* Adds fd with its target to s. 0 or -ENOMEM. */
int ooms_snapshot_add_fd(struct ooms_snapshot *s, int fd, const char *target);

/* Reads /proc into s (threads, fds, maps, status). 0 or -errno (target gone). */
int ooms_snapshot_take(pid_t pid, struct ooms_snapshot *s);
/* fn(ctx) is called every 1,024 threads or fds a snapshot reads (tens of ms
 * at 10 us an entry): the collector drains its ring buffer there, so a long
 * read of a large target does not leave it full. NULL: none. */
void ooms_snapshot_set_tick(void (*fn)(void *ctx), void *ctx);
void ooms_snapshot_free(struct ooms_snapshot *s);
/* "socket", "pipe", "anon_inode:[eventfd]", "/dev/ashmem", "file", ... */
const char *ooms_fd_kind(const char *target, char *buf, size_t len);
/* Whether an fd of kind (ooms_fd_kind's) is shared memory: a memfd, or
 * Android's ashmem (CursorWindows, GraphicBuffers): the memfd resource. */
int ooms_fd_kind_shared_memory(const char *kind);

#endif
