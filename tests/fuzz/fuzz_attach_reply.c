/* Fuzzing the reader of a HotSpot JVM's answer to an attach request
 * (runtime/hs_attach.c, hs_attach_parse_reply): a result code line, then
 * the command's output. It must take the code that strtol takes from the
 * same line, and the output that follows the line, cut to fit and ended by
 * a NUL; or refuse with code -1. With OOMS_FUZZ_PRINT set (the replays in
 * tests/bats/fuzz.bats) each input's reading is printed. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/hs_attach.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hs_attach_result res;
	char *buf = malloc(size ? size : 1), *copy = malloc(size + 1), *end;
	size_t n;
	long code;
	int e;

	if (!buf || !copy)
		abort();
	memcpy(buf, data, size); /* exactly size bytes: ASan sees a read past them */
	memset(&res, 0x5a, sizeof(res));
	e = hs_attach_parse_reply(buf, size, &res);
	/* the model: the bytes up to a NUL, strtol for the code */
	memcpy(copy, data, size);
	copy[size] = 0;
	n = strlen(copy);
	code = strtol(copy, &end, 10);
	if (e) {
		if (e != -EPROTO || res.code != -1 || res.out_len || res.out[0])
			abort();
		/* refused: no number, something after it on its line, or beyond an int */
		if (end != copy && (*end == 0 || *end == '\n') && code >= INT32_MIN && code <= INT32_MAX)
			abort();
	} else {
		const char *nl = strchr(end, '\n');
		size_t want = nl ? strlen(nl + 1) : 0;

		if (end == copy || (*end && *end != '\n') || res.code != code)
			abort();
		if (want >= sizeof(res.out))
			want = sizeof(res.out) - 1;
		if (res.out_len != want || res.out[res.out_len] || memcmp(res.out, nl ? nl + 1 : "", want) ||
		    strlen(res.out) != res.out_len || (size_t)(end - copy) > n)
			abort();
	}
	if (getenv("OOMS_FUZZ_PRINT"))
		printf("rc=%d code=%d out_len=%zu first=%.*s\n", e, res.code, e ? 0 : res.out_len,
		       e ? 0 : (int)strcspn(res.out, "\n"), res.out);
	free(buf);
	free(copy);
	return 0;
}
