/* Each run-directory file's part of the story (run_files.c's rows): how
 * it ended (death.json), the failing calls (failures.json), the memory's
 * growth by code (memory.json), the large allocations (allocs.json), the
 * groups at the end (fds.json, threads.json). Each says nothing when its
 * file is not in the run. */
#define _GNU_SOURCE
#include "report/story_files.h"
#include "report/story_out.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

void story_death(struct story *s, const struct rundata *rd)
{
	if (rd->have_death && rd->death.how) {
		story_say(s, "how it ended: %s", rd->death.how);
		if (rd->death.has_memory_kill && rd->death.memory_kill.sentence) /* each of its lines under it */
			for (const char *l = rd->death.memory_kill.sentence; *l;) {
				int n = (int)strcspn(l, "\n");

				if (n)
					story_say(s, "  %.*s", n, l);
				l += n + (l[n] == '\n');
			}
		if (rd->death.has_java_oom && rd->death.java_oom.message)
			story_say(s, "  OutOfMemoryError (%lld): %s", (long long)rd->death.java_oom.count,
			    rd->death.java_oom.message);
	} else if (rd->ended) {
		story_say(s, "how it ended: the watch stopped (%s) after %.1f s, the target still running",
		    story_or(rd->end_reason, "?"), rd->end_t);
	} else {
		story_say(s, "how it ended: the run has no end record (oomscope itself was stopped)");
	}
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The failing calls by call, error and caller: the kernel keys one site by
 * stack, and a program without frame pointers has many stacks a site. */
void story_failures(struct story *s, const struct rundata *rd)
{
	struct { const struct run_fail_group *g; uint64_t count; } top[16];
	size_t ntop = 0;

	if (!rd->have_failures || !rd->failures.count)
		return;
	for (size_t i = 0; i < rd->failures.n; i++) {
		const struct run_fail_group *g = &rd->failures.groups[i];
		size_t k = 0;

		while (k < ntop && !(same_str(top[k].g->syscall, g->syscall) && same_str(top[k].g->err, g->err) &&
				     same_str(top[k].g->called_by, g->called_by)))
			k++;
		if (k == ntop) {
			if (ntop == sizeof(top) / sizeof(top[0]))
				continue;
			top[ntop++] = (typeof(top[0])){g, 0};
		}
		top[k].count += g->count;
	}
	for (size_t i = 1; i < ntop; i++) /* most first */
		for (size_t k = i; k > 0 && top[k].count > top[k - 1].count; k--) {
			typeof(top[0]) t = top[k];

			top[k] = top[k - 1];
			top[k - 1] = t;
		}
	story_say(s, "failing calls (%llu):", (unsigned long long)rd->failures.count);
	for (size_t i = 0; i < ntop && i < STORY_PER_PART; i++)
		story_say(s, "  %6llu %s %s <- %s (thread %s)", (unsigned long long)top[i].count, story_or(top[i].g->syscall, "?"),
		    story_or(top[i].g->err, "?"), story_or(top[i].g->called_by, "caller unknown"),
		    story_or(top[i].g->thread, "?"));
}

/* The memory's growth by code: the stacks of one culprit as one line, the
 * largest first. */
void story_memory(struct story *s, const struct rundata *rd)
{
	struct run_memory_culprit *c;
	size_t nc;
	char b[32];

	if (!rd->have_memory || !rd->memory.ngroups || run_memory_culprits(&rd->memory, &c, &nc))
		return;
	story_say(s, "memory grown by (sampled page faults, one each %s):", story_mb((double)rd->memory.period_bytes, b, sizeof(b)));
	for (size_t i = 0; i < nc && i < STORY_PER_PART; i++) {
		story_say(s, "  ~%9s %s (%s)", story_mb((double)c[i].bytes, b, sizeof(b)), story_or(c[i].created_by, "code unknown"),
		    run_memory_backing(c[i].anon, c[i].file, c[i].shared));
		/* the Java heap grew: what holds it, as the last dump's analysis says */
		if (c[i].created_by && !strcmp(c[i].created_by, RUN_MEMORY_JAVA_HEAP) && rd->nanalyses) {
			const struct run_analysis *an = &rd->an[rd->nanalyses - 1];

			if (an->nleaks)
				story_say(s, "              what holds it (the last heap dump): %.0f %s, %s retained", an->leaks[0].instance_count,
				    story_or(an->leaks[0].class_name, "?"), story_mb(an->leaks[0].retained_size_total, b, sizeof(b)));
			else if (an->nsuspects)
				story_say(s, "              what holds it (the last heap dump): %s", story_or(an->suspects[0].description, "?"));
		}
	}
	run_memory_culprits_free(c, nc);
}

void story_allocs(struct story *s, const struct rundata *rd)
{
	char b[32];
	size_t top[STORY_PER_PART] = {0}, ntop = 0;

	if (!rd->nalloc_list)
		return;
	/* the largest few, in size order */
	for (size_t i = 0; i < rd->nalloc_list; i++) {
		size_t k = ntop < STORY_PER_PART ? ntop++ : STORY_PER_PART;

		if (k == STORY_PER_PART) {
			if (rd->alloc_list[i].bytes <= rd->alloc_list[top[STORY_PER_PART - 1]].bytes)
				continue;
			k = STORY_PER_PART - 1;
		}
		while (k > 0 && rd->alloc_list[top[k - 1]].bytes < rd->alloc_list[i].bytes) {
			top[k] = top[k - 1];
			k--;
		}
		top[k] = i;
	}
	story_say(s, "large allocations (%zu):", rd->nalloc_list);
	for (size_t i = 0; i < ntop; i++) {
		const struct rd_alloc *a = &rd->alloc_list[top[i]];

		int state = a->state && strcmp(a->state, "unknown");

		story_say(s, "  %9s %s <- %s at %.1f s%s%s", story_mb(a->bytes, b, sizeof(b)), story_or(a->function, "?"),
		    story_or(a->by, "code unknown"), a->t, state ? ", " : "", state ? a->state : "");
	}
}

void story_fds(struct story *s, const struct rundata *rd)
{
	if (rd->have_fds && rd->fds.ngroups) {
		story_say(s, "fds at the end (%lld):", (long long)rd->fds.members);
		story_snapshot_groups(s, &rd->fds, "  ");
	}
}

void story_threads(struct story *s, const struct rundata *rd)
{
	if (rd->have_threads && rd->threads.ngroups) {
		story_say(s, "threads at the end (%lld):", (long long)rd->threads.members);
		story_snapshot_groups(s, &rd->threads, "  ");
	}
}
