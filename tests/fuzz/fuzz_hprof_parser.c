/* Fuzzing the hprof push parser: the bytes are parsed whole, then again fed
 * in chunks of sizes drawn from the bytes themselves; the parser must not
 * crash, and both must end the same way with the same counts (the counts of
 * `oomscope hprof check`), whatever the chunking. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hprof/parser.h"
#include "hprof/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parse(const uint8_t *data, size_t size, int chunked, struct hprof_stats *st)
{
	struct hprof_visitor v;
	struct hprof_parser *p;
	uint32_t h = 2166136261u;
	size_t at = 0;
	int e = 0;

	hprof_stats_init(st);
	hprof_stats_visitor(st, &v);
	if (!(p = hprof_parser_new(&v)))
		abort();
	for (size_t i = 0; i < size && i < 16; i++)
		h = (h ^ data[i]) * 16777619u;
	while (!e && at < size) {
		size_t n = chunked ? 1 + h % 4099 : size - at;

		h = h * 1103515245u + 12345u;
		if (n > size - at)
			n = size - at;
		e = hprof_parser_feed(p, data + at, n);
		at += n;
	}
	if (!e)
		e = hprof_parser_finish(p);
	(void)hprof_parser_error(p);
	hprof_parser_free(p);
	return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hprof_stats whole, chunked; /* large: not on the stack */
	int a = parse(data, size, 0, &whole), b = parse(data, size, 1, &chunked);

	if (a != b || (!a && (memcmp(whole.records, chunked.records, sizeof(whole.records)) ||
			      memcmp(whole.subs, chunked.subs, sizeof(whole.subs)) ||
			      whole.gc_roots != chunked.gc_roots || whole.first_objects != chunked.first_objects)))
		abort(); /* the chunking changed the answer */
	return 0;
}
