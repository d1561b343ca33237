/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Event ABI between jheap.bpf.c (the Java runtimes' probes) and the user code that loads it (jheap.c).
 * Fixed size, a type and a version, kernel monotonic timestamps.
 */
#ifndef OOMSCOPE_COLLECTOR_JAVA_JHEAP_EVENTS_H
#define OOMSCOPE_COLLECTOR_JAVA_JHEAP_EVENTS_H

#ifndef __VMLINUX_H__
#include <stdint.h>
#endif

#define OOMS_RT_VERSION 2
#define OOMS_RT_NAME_LEN 64
#define OOMS_RT_MSG_LEN 320 /* ART's messages run past 200 bytes */

enum ooms_rt_type {
	RT_GC_BEGIN = 1,  /* a0: 1 for a full collection (HotSpot), GcCause (ART) */
	RT_GC_END = 2,
	RT_POOL = 3,      /* HotSpot: a memory pool after a GC: name (pool), name2 (manager),
			   * a0 init, a1 used, a2 committed, a3 max (-1: undefined) */
	RT_OOM_SIZE = 4,  /* ART: Heap::ThrowOutOfMemoryError, a0 the allocation's bytes */
	RT_OOM_MSG = 5,   /* ART: Thread::ThrowOutOfMemoryError; HotSpot: report_java_out_of_memory:
			   * msg the message, name the thread's (kernel) name */
	RT_THREAD_START = 6, /* HotSpot: a Java thread started: name, a0 Java tid, a1 native tid, a2 daemon */
	RT_THREAD_STOP = 7,
	RT_OOM_PRINTED = 8, /* a write to stderr naming an OutOfMemoryError (whoever threw it: the
			     * ones built in Java, java.nio.Bits's, reach no probe): msg the text
			     * from "OutOfMemoryError" on, name the writer's (kernel) name */
	RT_TYPE_MAX,
};

struct ooms_rt_event {
	uint16_t type;       /* enum ooms_rt_type */
	uint16_t version;    /* OOMS_RT_VERSION */
	uint32_t tid;        /* the thread that hit the probe */
	uint64_t ts_ns;      /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	int64_t a0, a1, a2, a3;
	char name[OOMS_RT_NAME_LEN];   /* pool or thread name */
	char name2[OOMS_RT_NAME_LEN];  /* pool's memory manager */
	char msg[OOMS_RT_MSG_LEN];     /* OOM message */
};

struct ooms_rt_totals {
	uint64_t events_sent;
	uint64_t ringbuf_drops;  /* failed reservations: events lost */
	uint64_t gcs;            /* GC begin probes hit */
	/* HotSpot: native memory allocated through Unsafe.allocateMemory and
	 * not freed since the probes went in (direct buffers' memory: the
	 * figure without the shim) */
	int64_t unsafe_bytes;
	uint64_t unsafe_blocks;
	uint64_t unsafe_untracked; /* allocations the address table had no room for */
};

#endif
