/* Attribution's state, shared by attrib.c (events in, stacks interned, fds
 * and threads looked up) and attrib_write.c (the groups written out: threads,
 * fds and mappings with their creation stacks, the end's summary). Private to
 * them; attrib.h is the interface. */
#ifndef OOMSCOPE_COLLECTOR_ATTRIB_INT_H
#define OOMSCOPE_COLLECTOR_ATTRIB_INT_H

#include "collector/attrib/attrib.h"
#include "sym/demangle.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collector/attrib/stacks.h"
#include "sym/stackfix.h"
#include "util/atomic_file.h"
#include "util/json.h"
#define MAX_FRAMES (OOMS_STACK_DEPTH + 1)
#define MAX_BIG_MAPS 4096

struct origin {
	uint32_t stack;
	uint32_t tid;   /* creating thread */
	uint32_t nr;    /* syscall slot, for fds and mappings */
	uint64_t start; /* pthread start routine, for threads */
	uint64_t ts_ns;
	char comm[OOMS_COMM_LEN]; /* creating thread's name */
	uint8_t seen;   /* 1 = created after attach, 2 = there at attach */
	uint8_t jstate; /* its Java stack: JS_* */
	uint32_t jstack; /* index in a->jstacks when jstate is JS_GOT */
	char *path;     /* fds: the path the open was given, or a socket's family and type
			 * ("AF_INET SOCK_STREAM"; is_socket set) (owned), or NULL */
	uint8_t is_socket;
};

enum { JS_NONE = 0, JS_ASKED, JS_GOT, JS_NO_JAVA, JS_SAMPLED };

/* An event whose Java stack was asked for, until the shim's report comes
 * (or a report that came first, until its event does) */
struct jpend {
	uint32_t tid;
	uint64_t sp, pc, ts_ns;
	uint16_t type;          /* EV_FD_OPEN, EV_THREAD_NEW, EV_MMAP_BIG, EV_CALL_FAIL; 0: a report waiting */
	int64_t key, key2;      /* the fd(s), the new thread's tid, the mapping's address */
	uint32_t jstack;        /* a report waiting: what it said (0: no Java frames) */
};
#define MAX_JPEND 4096

/* A failed call's Java stack (failures.c asks by its thread and time). */
struct jfail {
	uint32_t tid;
	uint64_t ts_ns;
	uint8_t jstate;
	uint32_t jstack;
};
#define MAX_JFAIL 1024

struct thread_slot {
	uint32_t tid; /* 0 = empty */
	struct origin o;
	char *java_name; /* the runtime's full name for it (HotSpot's thread__start), or NULL */
};

struct big_map {
	uint64_t addr, len;
	struct origin o;
};

/* A live Unsafe.allocateMemory block (direct buffers' memory) and who made it */
struct direct_block {
	uint64_t addr; /* 0: an empty slot */
	uint64_t bytes;
	struct origin o;
};
#define MAX_DIRECT_BLOCKS (1u << 21)

/* The sampled page faults of one stack (attrib_faults.c); samples 0: an empty slot */
struct fault_group {
	uint32_t stack;
	uint64_t samples, anon, file, shared;
	uint64_t java_heap;       /* of those, in a Java heap's reservation */
	char comm[OOMS_COMM_LEN]; /* the first thread seen touching them */
};

struct ooms_attrib {
	pid_t pid;
	enum ooms_arch arch;
	struct ooms_symbolizer *sym;
	struct ooms_stackfix *fix;
	struct ooms_stacks *stacks;
	struct origin *fds; /* indexed by fd */
	size_t nfds;
	struct thread_slot *threads; /* open addressing by tid */
	size_t nthread_slots, nthreads;
	struct big_map *maps;
	size_t nmaps;
	uint64_t events;
	char **jstacks;        /* Java stacks reported by the shim, interned; [0] unused */
	size_t njstacks, jstacks_cap;
	struct jpend *jp;      /* asked, not reported yet; and reported, not yet seen */
	size_t njp;
	struct jfail *jf;      /* the newest failed calls, with their Java stacks */
	size_t njf;
	uint64_t java_unmatched; /* reports whose event never came, or asks never answered */
	const char *const *platform; /* Java class prefixes that are the platform's, not the app's */
	int platform_add;            /* ... in addition to the default ones */
	int java_runtime;            /* the target runs Java (ATTRIB_JAVA_HOTSPOT or _ART): its anonymous code is Java's */
	struct direct_block *direct; /* open addressing by address (attrib_direct.c) */
	size_t ndirect_slots, ndirect;
	uint64_t direct_bytes;       /* the live blocks' bytes */
	uint64_t direct_untracked;   /* blocks the table had no room for */
	uint64_t direct_seen;        /* blocks made since attach */
	struct fault_group *faults;  /* open addressing by stack (attrib_faults.c) */
	size_t nfault_slots, nfaults;
	uint64_t fault_samples, fault_untracked, fault_period_pages;
};

struct origin *attrib_fd_origin(struct ooms_attrib *a, int64_t fd);
void attrib_fill_origin(struct ooms_attrib *a, struct origin *o, const struct ooms_event *e);
/* The direct blocks (attrib_direct.c): the one at addr (NULL: none); a new
 * one (NULL: no room, counted); one gone. */
struct direct_block *attrib_direct_find(struct ooms_attrib *a, uint64_t addr);
struct direct_block *attrib_direct_add(struct ooms_attrib *a, uint64_t addr, uint64_t bytes);
void attrib_direct_forget(struct ooms_attrib *a, uint64_t addr);
struct thread_slot *attrib_thread_find(struct ooms_attrib *a, uint32_t tid, int create);
/* One frame as a JSON object (attrib_frames.c); is_ret: addr is a return
 * address (its call is the instruction before). */
void attrib_write_frame(struct json *j, struct ooms_attrib *a, uint64_t addr, int is_ret);

#endif
