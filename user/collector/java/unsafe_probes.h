/* HotSpot's Unsafe.allocateMemory, reallocateMemory and freeMemory (the
 * memory of direct buffers): their entry points in libjvm.so (local
 * symbols of its .symtab) probed all or none, for the runtime's count
 * (jheap.c) and for the blocks by call site (java/direct_sites.c). */
#ifndef OOMSCOPE_COLLECTOR_UNSAFE_PROBES_H
#define OOMSCOPE_COLLECTOR_UNSAFE_PROBES_H

#include <sys/types.h>

struct bpf_program;
struct bpf_link;

enum { UNSAFE_ALLOC, UNSAFE_ALLOC_RET, UNSAFE_REALLOC, UNSAFE_REALLOC_RET, UNSAFE_FREE, UNSAFE_PROBES };

/* Attaches progs (indexed as above; a return program may serve both) to
 * pid's lib (a path through /proc/PID/root): links in out. 0, -ENOENT when
 * a symbol is missing (*missing names it), or the attach's -errno (none
 * left attached). */
int ooms_unsafe_attach(pid_t pid, const char *lib, struct bpf_program *const progs[UNSAFE_PROBES],
		       struct bpf_link *out[UNSAFE_PROBES], const char **missing);

#endif
