/* What both halves of the Java heap watch use (jheap_int.h), below jheap.c
 * (probes, events, rules) and jheap_dump.c (dumps): the clock, a shim
 * line's values, and an OutOfMemoryError seen on stderr held until the
 * shim's line about it comes. */
#define _GNU_SOURCE
#include "collector/java/jheap_int.h"
#include "run/timeline.h"

double jheap_now(struct ooms_jheap *j)
{
	return j->io.now(j->io.ctx);
}

/* The value of key=WORD in a shim line, %XX-unescaped, into out. */
const char *jheap_line_value(const char *line, const char *key, char *out, size_t len)
{
	char pat[32];
	const char *p;
	size_t o = 0;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	out[0] = 0;
	if (!p)
		return out;
	for (p += strlen(pat); *p && *p != ' ' && o + 1 < len; p++) {
		unsigned v;

		if (*p == '%' && sscanf(p + 1, "%2x", &v) == 1) {
			out[o++] = (char)v;
			p += 2;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = 0;
	return out;
}

/* The same error's message, one maybe cut short (the stderr watch reads
 * 127 bytes, the record keeps 160). */
int jheap_same_oom(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), n = na < nb ? na : nb;

	/* one cut short (the stderr watch reads 127 bytes, the record keeps 160) */
	return na == nb ? !strcmp(a, b) : n >= 40 && !strncmp(a, b, n);
}

/* An error printed on stderr while the shim was armed, written now (its
 * line never came). */
void jheap_printed_flush(struct ooms_jheap *j)
{
	struct run_record r = {.type = REC_OOM, .u.oom = {.t = j->printed.t, .bytes = RUN_NONE, .source = "stderr",
							  .tid = j->printed.tid, .thread = j->printed.thread,
							  .message = j->printed.msg}};

	if (!j->printed.pending)
		return;
	j->printed.pending = 0;
	j->io.emit(j->io.ctx, run_record_body, &r);
	if (j->io.say)
		j->io.say(j->io.ctx, "!! OutOfMemoryError printed by thread %s (tid %u): %s (seen on stderr only: no probe of "
				     "the runtime's saw it thrown)", j->printed.thread, j->printed.tid, j->printed.msg);
}

void jheap_printed_seen(struct ooms_jheap *j, const char *msg)
{
	if (j->printed.pending && jheap_same_oom(j->printed.msg, msg))
		j->printed.pending = 0;
}
