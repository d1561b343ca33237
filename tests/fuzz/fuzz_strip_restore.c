/* Fuzzing strip and restore: for bytes the parser accepts as a dump,
 * restore(strip(x)) must parse and keep every object, class, GC root and
 * heap record count of x (`oomscope hprof check`'s counts; primitive arrays
 * come back at their lengths, zero-filled); neither step may crash. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "hprof/io.h"
#include "hprof/parser.h"
#include "hprof/stats.h"
#include "hprof/transform.h"
#include "hprof/writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int feed(const uint8_t *data, size_t size, const struct hprof_visitor *v)
{
	struct hprof_parser *p = hprof_parser_new(v);
	int e;

	if (!p)
		abort();
	e = hprof_parser_feed(p, data, size);
	if (!e)
		e = hprof_parser_finish(p);
	hprof_parser_free(p);
	return e;
}

/* x through op into a new buffer (*out, *len); 0 or an error. */
static int transform(const uint8_t *data, size_t size, enum hprof_op op, uint8_t **out, size_t *len)
{
	struct hprof_sink sink;
	struct hprof_writer w;
	struct hprof_transform t;
	struct hprof_visitor v;
	int fd = memfd_create("fuzz-out", MFD_CLOEXEC), e;
	off_t end;

	if (fd < 0 || hprof_sink_open(&sink, fd, HPROF_PLAIN, -1) || hprof_writer_init(&w, &sink, 1 << 20))
		abort();
	hprof_transform_visitor(&t, op, &w, NULL, &v);
	e = feed(data, size, &v);
	if (!e)
		e = hprof_writer_finish(&w);
	if (!e)
		e = hprof_sink_finish(&sink);
	hprof_writer_free(&w);
	hprof_sink_free(&sink);
	*out = NULL;
	*len = 0;
	if (!e && (end = lseek(fd, 0, SEEK_END)) > 0) {
		*len = (size_t)end;
		if (!(*out = malloc(*len)) || pread(fd, *out, *len, 0) != (ssize_t)*len)
			abort();
	}
	close(fd);
	return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hprof_stats orig, back; /* large: not on the stack */
	struct hprof_visitor v;
	uint8_t *stripped, *restored;
	size_t slen, rlen;

	hprof_stats_init(&orig);
	hprof_stats_visitor(&orig, &v);
	if (feed(data, size, &v) || orig.prim_content_bytes != orig.prim_content_original_bytes)
		return 0; /* not a dump, or stripped already: nothing to check */
	if (transform(data, size, HPROF_OP_STRIP_APP, &stripped, &slen)) {
		free(stripped);
		return 0; /* refused (a dump the writer cannot carry): said, not a crash */
	}
	if (transform(stripped, slen, HPROF_OP_RESTORE, &restored, &rlen))
		abort(); /* what strip wrote, restore must take */
	hprof_stats_init(&back);
	hprof_stats_visitor(&back, &v);
	if (feed(restored, rlen, &v))
		abort(); /* what restore wrote must parse */
	if (orig.first_objects != back.first_objects || orig.first_classes != back.first_classes ||
	    orig.gc_roots != back.gc_roots || orig.prim_content_original_bytes != back.prim_content_original_bytes)
		abort(); /* an object, a class, a root or an array's length was lost */
	free(stripped);
	free(restored);
	return 0;
}
