/* The story's writer and the helpers its parts share (story_out.h). */
#define _GNU_SOURCE
#include "report/story_out.h"
#include "util/units.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

void story_say(struct story *s, const char *fmt, ...)
{
	va_list ap;

	if (s->lines >= STORY_LINES - 1) { /* the last line says what was left out */
		s->cut++;
		return;
	}
	va_start(ap, fmt);
	vfprintf(s->f, fmt, ap);
	va_end(ap);
	fputc('\n', s->f);
	s->lines++;
}

const char *story_mb(double bytes, char *buf, size_t len)
{
	return units_bytes(bytes, buf, len);
}

const char *story_or(const char *s, const char *why)
{
	return s && *s ? s : why;
}

/* What a stack of a snapshot is known by: its code, or why none. */
static const char *stack_by(const struct run_snap_stack *st)
{
	return st->created_by ? st->created_by : story_or(st->unknown, "code unknown");
}

/* Code a Java runtime or oomscope's shim runs for itself: its threads are
 * the runtime's own, not the app's. */
static int runtime_own(const char *by)
{
	static const char *const libs[] = {"(libjvm.so)", "(libart.so)", "(liboomscope_shim.so)"};
	size_t n = by ? strlen(by) : 0;

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (n >= strlen(libs[i]) && !strcmp(by + n - strlen(libs[i]), libs[i]))
			return 1;
	return 0;
}

/* Does this stack name the code that made it (a Java frame with its file, a
 * native function), rather than why it cannot? */
static int named(const struct run_snap_stack *st)
{
	return st && st->created_by && strncmp(st->created_by, "Java code (", 11) &&
	       strncmp(st->created_by, "interpreted Java (", 18);
}

/* The largest groups, at equal counts the ones whose code is named first;
 * the threads a runtime made for itself (a JVM's compiler and GC threads)
 * said in the last line, not listed. */
void story_snapshot_groups(struct story *s, const struct run_snapshot *snap, const char *indent)
{
	const char *what = snap->kind == SNAP_THREADS ? "thread" : "fd";
	size_t top[STORY_PER_PART], ntop = 0, own_groups = 0, rest = 0;
	uint64_t own = 0;

	for (size_t i = 0; i < snap->ngroups; i++) {
		const struct run_snap_group *g = &snap->groups[i];
		const struct run_snap_stack *st = g->nstacks ? &g->stacks[0] : NULL;
		size_t k;

		if (snap->kind == SNAP_THREADS && st && runtime_own(st->created_by)) {
			own += g->count;
			own_groups++;
			continue;
		}
		rest++;
		/* insert into the top few (groups come largest first: a later one
		 * goes ahead only at an equal count with its code named) */
		for (k = ntop; k > 0; k--) {
			const struct run_snap_group *h = &snap->groups[top[k - 1]];

			if (!(h->count < g->count ||
			      (h->count == g->count && named(st) && !named(h->nstacks ? &h->stacks[0] : NULL))))
				break;
		}
		if (k >= STORY_PER_PART)
			continue;
		if (ntop < STORY_PER_PART)
			ntop++;
		memmove(top + k + 1, top + k, (ntop - 1 - k) * sizeof(top[0]));
		top[k] = i;
	}
	for (size_t i = 0; i < ntop; i++) {
		const struct run_snap_group *g = &snap->groups[top[i]];
		const struct run_snap_stack *st = g->nstacks ? &g->stacks[0] : NULL;

		story_say(s, "%s%6llu %s%s %s%s%s", indent, (unsigned long long)g->count, what, g->count == 1 ? "" : "s",
		    story_or(g->name, "?"), st ? " <- " : "", st ? stack_by(st) : "");
	}
	if (rest > ntop && own)
		story_say(s, "%s       (%zu more group%s; and %llu thread%s the runtime made for itself)", indent, rest - ntop,
		    rest - ntop == 1 ? "" : "s", (unsigned long long)own, own == 1 ? "" : "s");
	else if (rest > ntop)
		story_say(s, "%s       (%zu more group%s)", indent, rest - ntop, rest - ntop == 1 ? "" : "s");
	else if (own)
		story_say(s, "%s       (and %llu thread%s the runtime made for itself, in %zu group%s)", indent,
		    (unsigned long long)own, own == 1 ? "" : "s", own_groups, own_groups == 1 ? "" : "s");
}
