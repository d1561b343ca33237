/* Why memory killed the target: a death by a memory killer (lmkd, earlyoom,
 * systemd-oomd, oomd; or any root process's SIGKILL or SIGTERM while memory
 * was short, known by its behaviour) or by the kernel's OOM killer,
 * explained with what the killer saw: the system's memory and pressure at
 * the kill and over the minute before, the target's oom_score_adj,
 * oom_score, RSS and swap, its place in the killer's own order, and the
 * other processes the same killer signalled within 30 s (its round).
 * Pure: built from the samples' figures, the last ranking of all processes
 * and the kernel side's ring of kills, so it is unit-tested without a
 * killer. */
#ifndef OOMSCOPE_COLLECTOR_END_KILLER_H
#define OOMSCOPE_COLLECTOR_END_KILLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/end/end_cause.h"
#include "collector/kernel/collect.h"
#include "collector/memory/memory_watch.h"
#include "collector/memory/ranking.h"
#include "detect/sample.h"

#define KILL_ROUND_MAX 16
#define KILL_ROUND_NS (30ull * 1000000000ull)

struct kill_victim {
	pid_t pid;
	char comm[16];
	double t;               /* s since the watch began */
	int64_t rss_kb, adj;    /* from the last ranking; -1 / INT32_MIN unknown */
};

struct memory_kill {
	char killer[48];        /* "earlyoom", "lmkd", "the kernel's OOM killer", ... */
	const char *known_by;   /* "name", "behaviour", "kernel" */
	const char *order;      /* "oom_score", "oom_score_adj, then RSS" */
	size_t rank, ranked;    /* the target's place in that order, of how many (0: unknown) */
	double rank_t;          /* when they were ranked (s) */
	struct ooms_memfig at;  /* the last sample before the kill: the system's and the target's figures */
	double at_t;
	/* over the minute before */
	int64_t min_available_kb;
	double max_some10, max_full10;
	size_t moments;
	struct kill_victim round[KILL_ROUND_MAX];
	size_t nround;
	char sentence[768];     /* one or two lines, for the terminal and the report */
};

struct killer_input {
	struct ooms_death_rec *death;   /* classified; a DEATH_OTHER may become DEATH_MEM_KILLER */
	pid_t pid;
	int sender_root;                /* 1 the sender runs as root, 0 not, -1 unknown */
	const struct ooms_sample *last; /* the last sample (its memory figures) */
	const struct mem_moment *hist;  /* the system's memory, oldest first */
	size_t nhist;
	const struct mem_ranking *rank;
	const struct ooms_kill_rec *kills; /* the kernel side's ring, in any order */
	size_t nkills;
	uint64_t start_ns;              /* the watch's start (CLOCK_MONOTONIC) */
	double death_t;                 /* the end, s since the start */
};

/* Memory was short when the last moments say so: MemAvailable under 10 %
 * of MemTotal, or tasks stalled on memory 10 % of the last 10 s. */
int ooms_memory_short(const struct mem_moment *hist, size_t n);
/* 1 and *out filled when the death was memory's (a memory killer's or the
 * kernel's OOM killer's); 0 otherwise. */
int ooms_memory_kill_explain(const struct killer_input *in, struct memory_kill *out);

#endif
