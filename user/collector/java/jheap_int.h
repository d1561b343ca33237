/* The Java heap watch's state and what its two files share: jheap.c (the
 * runtime's probes and events, attaching, the samples and the heap rule)
 * and jheap_dump.c (the dumps the rule asks for, and the one armed for the
 * OutOfMemoryError). Private to them; jheap.h is the interface. */
#ifndef OOMSCOPE_COLLECTOR_JHEAP_INT_H
#define OOMSCOPE_COLLECTOR_JHEAP_INT_H

#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "detect/pool_rule.h"
#include "dump/oomdump.h"
#include "hprof/io.h"
#include "collector/java/jheap_events.h"
#include "jheap.skel.h"
#include "runtime/art_agent.h"
#include "runtime/hsperf.h"
#include "run/records.h"
#include "runtime/shim_client.h"
#include "sym/symbolize.h"
#include "util/json.h"
#include "collector/java/jheap.h"

#define MAX_POOLS 16

struct pool {
	char name[OOMS_RT_NAME_LEN];
	int64_t used, committed, max;
};

struct ooms_jheap {
	pid_t pid;
	struct ooms_jheap_opts o;
	char dir[4096];
	struct ooms_jheap_io io;
	struct ooms_rt_target rt;
	int found;
	struct jheap_bpf *skel;
	struct bpf_link *links[16];
	int nlinks;
	struct bpf_link *printed_link; /* the OutOfMemoryErrors written to stderr (not a probe of the runtime's) */
	struct bpf_link *unsafe_links[5]; /* Unsafe.allocateMemory's blocks: direct memory without the shim */
	int nunsafe;
	int ooms_printed_only;         /* ... seen there only: thrown by Java code */
	/* GC */
	uint64_t gc_begin_ns;
	int gc_full;
	uint64_t gcs;
	double gc_pause_ms;
	struct pool pools[MAX_POOLS];
	int npools;
	uint64_t events;
	uint64_t unknown_events; /* of a type or version this collector does not know */
	/* the rule */
	struct ooms_heap_rule rule;
	double last_poll_t;
	/* the other pools' rules and GC distress (pool_rule.h) */
	struct ooms_pool_rule meta_rule, class_rule, direct_rule;
	/* direct buffer memory, as the shim last sent it (ooms_jheap_note_direct) */
	int64_t direct_used, direct_max;
	int64_t direct_limit_seen; /* the last sample's direct memory limit (-1: none yet) */
	int shim_preloaded;        /* the target loads the shim itself (-agentpath) */
	int art_loading;           /* --shim on ART: oomscope puts it in the app, a step each sample */
	struct ooms_art_loader art_loader;
	struct ooms_gc_rule gc_rule;
	/* dumps */
	int efd;
	int running;
	int seq;             /* the last dump number given */
	int run_seq;         /* the running rule dump's */
	int ran_out;         /* enum ooms_ran_out of the next rule dump: what its analysis looks for */
	int dumps;
	int crossings;
	pthread_t th;
	struct ooms_dump_request rq;
	struct ooms_dump_result res;
	struct ooms_fresh_request arq;   /* its analysis (arq.json NULL: none) */
	struct ooms_fresh_result ares;
	char out[4200], json_path[4300], txt_path[4300];
	double started_t;
	int finished;          /* the dump thread is done (set before it signals efd) */
	/* the last-chance dump at the OutOfMemoryError (--shim, HotSpot) */
	struct ooms_oomdump *arm;
	struct ooms_dump_request arm_rq;
	struct ooms_dump_result arm_res;
	struct ooms_fresh_request arm_arq;
	struct ooms_fresh_result arm_ares;
	char arm_out[4300], arm_json[4300], arm_txt[4300];
	int ooms;              /* OutOfMemoryErrors the runtime raised (probe) */
	double oom_t;          /* the last one's time, message and thread */
	char oom_msg[OOMS_RT_MSG_LEN + 1], oom_thread[200];
	/* An error seen printed on stderr while the shim is armed: its record
	 * waits for the shim's line about it (the hook writes that line before
	 * the error can be printed, but it comes on another channel), and is
	 * dropped when that comes; else written at the end (jheap_printed_flush). */
	struct {
		int pending;
		double t;
		uint32_t tid;
		char msg[OOMS_RT_MSG_LEN + 1], thread[OOMS_RT_NAME_LEN + 1];
	} printed;
	char oom_dump[4300];   /* the dump taken at the throw, "" if none */
	uint8_t perf[65536];
};

double jheap_now(struct ooms_jheap *j);
/* The value of key=WORD in a shim line, %XX-unescaped, into out. */
const char *jheap_line_value(const char *line, const char *key, char *out, size_t len);
/* jheap_dump.c */
void jheap_start_dump(struct ooms_jheap *j, const char *reason);
void jheap_arm_start(struct ooms_jheap *j);
const char *jheap_base(const char *path);

/* Two OutOfMemoryError messages are one error's (either may be cut short). */
int jheap_same_oom(const char *a, const char *b);

/* The dumps' file name ending, by --dump-codec: ".gz", ".xz" or "". */
static inline const char *jheap_ext(const struct ooms_jheap *j)
{
	return j->o.codec == HPROF_GZIP ? ".gz" : j->o.codec == HPROF_XZ ? ".xz" : "";
}

void jheap_printed_flush(struct ooms_jheap *j);
/* A runtime's or the shim's record of the error msg: a printed one waiting
 * for it is not written. */
void jheap_printed_seen(struct ooms_jheap *j, const char *msg);

#endif
