/* Fuzzing the analyzer on arbitrary bytes: the index's two passes, the
 * searches, the dominators, the names pass and the reports, as `oomscope
 * analyze` runs them; it must answer or refuse, never crash or hang. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "analyze/analyzer.h"
#include "analyze/findings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ooms_analyze_opts o = {0};
	struct ooms_analysis a;
	struct ooms_err err = {0};
	char path[64];
	int fd = memfd_create("fuzz.hprof", MFD_CLOEXEC);
	FILE *out;

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	o.max_memory = 512ull << 20; /* a few bytes must not ask for gigabytes */
	if (!ooms_analyze(&a, path, &o, &err)) {
		if (!(out = fopen("/dev/null", "w")))
			abort();
		ooms_analysis_json(&a, 10, out);
		ooms_analysis_text(&a, 10, out);
		fclose(out);
		ooms_analysis_free(&a);
	} else if (!err.msg[0]) {
		abort(); /* a refusal says why */
	}
	close(fd);
	return 0;
}
