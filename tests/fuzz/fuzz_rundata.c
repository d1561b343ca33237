/* Fuzzing the run-directory reader behind `oomscope report` (report/rundata.c,
 * run/timeline.c): one input is a run directory packed as
 * tests/fuzz/pack-run.sh packs it (timeline.jsonl, then each further file
 * after a line "#> NAME"), written into a temp directory and read back. The
 * reader must take any directory (lines it cannot read counted, files it
 * cannot read left out), never crash; what it keeps must hold together.
 * With OOMS_FUZZ_PRINT set (the replays in tests/bats/fuzz.bats) what it
 * read is printed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/rundata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MARK "#> "
#define MAX_FILES 32

static char dir[64];

/* Empties dir (what the last input wrote). */
static void clear(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		abort();
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' || (e->d_name[1] && (e->d_name[1] != '.' || e->d_name[2])))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

static void gone(void)
{
	clear();
	rmdir(dir);
}

/* Writes one file (a name given twice: the last one). */
static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	if (n && write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

/* A file name the packing may give: no path, no dot file, not too long. */
static int good_name(const uint8_t *p, size_t n)
{
	if (!n || n > 64 || p[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(p[i] >= 'a' && p[i] <= 'z') && !(p[i] >= 'A' && p[i] <= 'Z') && !(p[i] >= '0' && p[i] <= '9') &&
		    p[i] != '.' && p[i] != '-' && p[i] != '_')
			return 0;
	return 1;
}

/* Splits the input into the run directory's files; their number. */
static size_t unpack(const uint8_t *data, size_t size, size_t *lines)
{
	const uint8_t *end = data + size, *at = data, *body_end;
	char name[80] = "timeline.jsonl";
	size_t files = 0;

	*lines = 0;
	while (at <= end) {
		/* this file's body: up to the next line that is a mark */
		const uint8_t *p = at, *next = NULL;

		for (;;) {
			if (p + 3 <= end && !memcmp(p, MARK, 3)) {
				next = p;
				break;
			}
			if (!(p = memchr(p, '\n', (size_t)(end - p))))
				break;
			p++;
		}
		body_end = next ? next : end;
		if (!strcmp(name, "timeline.jsonl"))
			for (const uint8_t *q = at; q < body_end; q++)
				*lines += *q == '\n';
		if (name[0] && files < MAX_FILES) {
			put(name, at, (size_t)(body_end - at));
			files++;
		}
		if (!next)
			break;
		/* the mark's line names the next file */
		const uint8_t *nl = memchr(next, '\n', (size_t)(end - next));
		size_t nlen = (size_t)((nl ? nl : end) - next - 3);

		name[0] = 0;
		if (good_name(next + 3, nlen) && !(nlen == 14 && !memcmp(next + 3, "timeline.jsonl", 14))) {
			memcpy(name, next + 3, nlen);
			name[nlen] = 0;
		}
		if (!nl)
			break;
		at = nl + 1;
	}
	return files;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rundata rd; /* large: not on the stack */
	struct ooms_err err = {0};
	size_t lines, files;
	int e;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/ooms-fuzz-run.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(gone);
	}
	clear();
	files = unpack(data, size, &lines);
	e = rundata_load(&rd, dir, &err);
	if (e)
		abort(); /* the timeline is always there: any content is a run directory */
	if (rd.nsamples + rd.nevents + rd.bad_lines > lines + 1 || rd.nanalyses > files)
		abort(); /* more read than there was */
	for (size_t i = 0; i < rd.nalloc_list; i++) {
		const struct rd_alloc *a = &rd.alloc_list[i];

		if (isnan(a->t) || isnan(a->bytes) || a->t < 0 || (i && a->t < rd.alloc_list[i - 1].t))
			abort(); /* damaged allocations left out, the rest in time order */
	}
	for (size_t i = 1; i < rd.nanalyses; i++)
		if (rd.analysis_seq[i] <= rd.analysis_seq[i - 1])
			abort(); /* analyses by number, each once */
	for (size_t i = 0; i < rd.nevents; i++)
		if (!memchr(rd.events[i].text, 0, sizeof(rd.events[i].text)) ||
		    !memchr(rd.events[i].rule, 0, sizeof(rd.events[i].rule)))
			abort();
	if (getenv("OOMS_FUZZ_PRINT"))
		printf("files=%zu pid=%d mode=%s samples=%zu events=%zu bad_lines=%zu ended=%d reason=%s "
		       "threads=%d fds=%d allocs=%zu analyses=%zu first_analysis=%d\n",
		       files, rd.pid, rd.mode, rd.nsamples, rd.nevents, rd.bad_lines, rd.ended, rd.end_reason,
		       rd.have_threads, rd.have_fds, rd.nalloc_list, rd.nanalyses,
		       rd.nanalyses ? rd.analysis_seq[0] : -1);
	rundata_free(&rd);
	return 0;
}
