/* Fuzzing the hsperfdata parser (runtime/hsperf.c) on arbitrary bytes: every
 * counter it hands out must lie within the buffer with its NUL there, the
 * answers must be among the documented ones, and the heap and collector
 * readers built on it must agree with it. With OOMS_FUZZ_PRINT set (the
 * replays in tests/bats/fuzz.bats) each input's figures are printed. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/hsperf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct walk {
	const uint8_t *buf;
	size_t len, counters, longs, strings;
};

static void within(const struct walk *w, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;

	if (p < w->buf || p >= w->buf + w->len || !memchr(p, 0, (size_t)(w->buf + w->len - p)))
		abort(); /* a name or string outside the buffer, or not ended in it */
}

static int visit(void *ctx, const char *name, char type, int64_t value, const char *str)
{
	struct walk *w = ctx;

	(void)value;
	within(w, name);
	if (str) {
		within(w, str);
		w->strings++;
	}
	if (type == 'J')
		w->longs++;
	w->counters++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: ASan sees a read past the end */
	uint8_t *buf = malloc(size ? size : 1);
	struct walk w = {buf, size, 0, 0, 0};
	struct hsperf_heap h;
	int e, he, ce;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	e = hsperf_parse(buf, size, visit, &w);
	if (e && e != -EINVAL && e != -EAGAIN)
		abort();
	he = hsperf_heap_from(buf, size, &h);
	if (e ? he != e : he != 0 && he != -ENODATA)
		abort(); /* the heap reader must refuse what the parser refuses, and only that */
	/* the collector search stops at its first match: damage after it is not seen */
	ce = hsperf_collector_is(buf, size, "G1 ");
	if (e ? ce != e && ce != 1 : ce != 0 && ce != 1)
		abort();
	if (getenv("OOMS_FUZZ_PRINT"))
		printf("parse=%d counters=%zu longs=%zu strings=%zu heap=%d used=%lld committed=%lld max=%lld "
		       "gcs=%lld full_gcs=%lld gc_ms=%lld meta=%lld/%lld limit=%lld class=%lld/%lld g1=%d\n",
		       e, w.counters, w.longs, w.strings, he, (long long)h.used, (long long)h.committed,
		       (long long)h.max, (long long)h.gc_count, (long long)h.full_gc_count, (long long)h.gc_time_ms,
		       (long long)h.meta_used, (long long)h.meta_max, (long long)h.meta_limit,
		       (long long)h.class_used, (long long)h.class_max, ce);
	free(buf);
	return 0;
}
