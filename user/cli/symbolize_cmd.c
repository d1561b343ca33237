/* oomscope symbolize: fills in function names and source lines of the frames
 * in a saved report (allocs.json, threads.json, fds.json, vmsize.json) from
 * a directory of unstripped libraries and executables, matched by build-id
 * (or by file name when a frame has none). Reports keep frames in crash-log
 * form (module, offset, build-id) so this can run on another machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "run/frames.h"
#include "sym/demangle.h"
#include "cli/commands.h"
#include "cli/opts.h"
#include "sym/symbolize.h"
#include "util/atomic_file.h"
#include "util/vec.h"

static const char usage_text[] =
	"usage: oomscope symbolize [-o OUT] REPORT DIR...\n"
	"\n"
	"Fills in the function name, offset and source file:line of every frame of\n"
	"REPORT (a run directory's allocs.json, threads.json, fds.json or vmsize.json)\n"
	"from the unstripped ELF files under DIR (searched recursively), matched by\n"
	"build-id, else by file name. A DIR laid out by build id (.build-id/ab/cdef...\n"
	".debug, as /usr/lib/debug and symbol servers are) is looked up directly.\n"
	"Source lines need DWARF (-g builds, or the files of Debian's -dbgsym\n"
	"packages). REPORT is rewritten in place unless -o.\n"
	"\n"
	"options:\n";

static const char usage_example[] =
	"\n"
	"example:\n"
	"  oomscope symbolize oomscope-1234-*/allocs.json ~/build/symbols\n";

static const struct cli_opt options[] = {
	{"out", 'o', required_argument, 'o', "FILE", "write the symbolized report to FILE"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

struct elf_entry {
	char *path;
	char *build_id;
	const char *base;
};

static struct elf_entry *files;
static size_t nfiles, files_cap;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char id[128];

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size < 64)
		return 0;
	if (vec_reserve((void **)&files, &files_cap, nfiles + 1, sizeof(*files)))
		return -1;
	if (ooms_sym_build_id(path, id, sizeof(id)) == -EINVAL)
		return 0; /* not ELF */
	files[nfiles].path = strdup(path);
	files[nfiles].build_id = ooms_sym_build_id(path, id, sizeof(id)) == 0 ? strdup(id) : NULL;
	files[nfiles].base = strrchr(files[nfiles].path, '/') ? strrchr(files[nfiles].path, '/') + 1 : files[nfiles].path;
	nfiles++;
	return 0;
}

static char *const *dirs; /* the DIR arguments */
static int ndirs;

/* A folder laid out by build id (DIR/.build-id/ab/cdef....debug: Debian's
 * debug packages, most symbol servers; symlinks followed): the file for
 * build_id, or NULL. */
static const char *by_build_id_path(const char *build_id)
{
	static char path[8192];
	static const char *const forms[] = {"%s/.build-id/%.2s/%s.debug", "%s/.build-id/%.2s/%s", "%s/%.2s/%s.debug"};
	struct stat st;

	if (!build_id || strlen(build_id) < 3)
		return NULL;
	for (int d = 0; d < ndirs; d++)
		for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
			char id[128];

			if (snprintf(path, sizeof(path), forms[k], dirs[d], build_id, build_id + 2) >= (int)sizeof(path))
				continue;
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && ooms_sym_build_id(path, id, sizeof(id)) == 0 &&
			    !strcmp(id, build_id))
				return path;
		}
	return NULL;
}

/* The file for a frame: same build-id (a build-id folder's first), else (no
 * build-id in the frame) same name. */
static const char *file_for(const char *build_id, const char *module)
{
	const char *base = module ? strrchr(module, '/') : NULL, *p;

	if ((p = by_build_id_path(build_id)))
		return p;
	base = base ? base + 1 : module;
	for (size_t i = 0; build_id && i < nfiles; i++)
		if (files[i].build_id && !strcmp(files[i].build_id, build_id))
			return files[i].path;
	for (size_t i = 0; !build_id && base && i < nfiles; i++)
		if (!strcmp(files[i].base, base))
			return files[i].path;
	return NULL;
}

static size_t frames_seen, frames_done;

static void symbolize_frames(struct json_object *frames, void *ctx)
{
	size_t n = json_object_array_length(frames);

	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(frames, i);
		const char *module, *build_id, *path, *t;
		struct ooms_offline_frame of;
		uint64_t offset;
		char text[1600], name[256];

		if (run_frame_module_offset(f, &module, &offset, &build_id, &t))
			continue;
		frames_seen++;
		if (!(path = file_for(build_id, module)) || ooms_sym_offline(path, offset, i > 0, &of) != 0)
			continue;
		frames_done++;
		struct run_frame_found found = {.symbol = of.symbol, .sym_offset = of.sym_offset,
						.file = of.line ? of.file : NULL, .line = of.line, .from = path};

		if (of.symbol[0]) {
			const char *d = ooms_demangle(of.symbol, name, sizeof(name));

			found.demangled = d != of.symbol ? d : NULL;
		}
		if (t) {
			/* crash-log form, then the name and the line */
			char head[600];
			const char *plus = strstr(t, " + ");
			size_t keep = plus ? (size_t)(strchrnul(plus + 3, ' ') - t) : strlen(t);

			snprintf(head, sizeof(head), "%.*s", (int)keep, t);
			if (of.line)
				snprintf(text, sizeof(text), "%s %s+%llu (%s:%d)", head, of.symbol[0] ? of.symbol : "?",
					 (unsigned long long)of.sym_offset, of.file, of.line);
			else
				snprintf(text, sizeof(text), "%s %s+%llu", head, of.symbol, (unsigned long long)of.sym_offset);
			found.text = text;
		}
		run_frame_set_found(f, &found);
	}
}

int cmd_symbolize(int argc, char **argv)
{
	struct option longopts[sizeof(options) / sizeof(options[0])];
	char shortopts[8];
	const char *out = NULL, *in;
	struct json_object *doc;
	struct atomic_file af;
	const char *text;
	int c, e, rc = 1;

	optind = 1;
	if (cli_opts_getopt(options, longopts, sizeof(longopts) / sizeof(longopts[0]), "", shortopts, sizeof(shortopts)))
		return 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'o') {
			out = optarg;
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			cli_opts_help(options, stdout);
			fputs(usage_example, stdout);
			return 0;
		} else {
			return cli_opts_error("symbolize", c, argv);
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("symbolize", "%s", "give a report and at least one directory of ELF files");
	in = argv[optind];
	doc = json_object_from_file(in);
	if (!doc) {
		const char *why = json_util_get_last_err();
		int len = why ? (int)strcspn(why, "\n") : 0;

		fprintf(stderr, "oomscope symbolize: %s: not a readable JSON report (%.*s)\n", in, len, why ? why : "");
		return 1;
	}
	dirs = argv + optind + 1;
	ndirs = argc - optind - 1;
	for (int i = optind + 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "oomscope symbolize: %s: not a directory\n", argv[i]);
			goto done;
		}
		if (nftw(argv[i], visit, 32, FTW_PHYS)) {
			fprintf(stderr, "oomscope symbolize: %s: %s\n", argv[i], strerror(errno));
			goto done;
		}
	}
	run_frames_walk(doc, symbolize_frames, NULL);
	if ((e = atomic_open(&af, out ? out : in))) {
		fprintf(stderr, "oomscope symbolize: %s: %s\n", out ? out : in, strerror(-e));
		goto done;
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	fputs(text, af.f);
	fputc('\n', af.f);
	if ((e = atomic_commit(&af))) {
		fprintf(stderr, "oomscope symbolize: %s: %s\n", out ? out : in, strerror(-e));
		goto done;
	}
	fprintf(stderr, "oomscope symbolize: %zu of %zu frames symbolized from %zu ELF files\n", frames_done,
		frames_seen, nfiles);
	rc = 0;
done:
	json_object_put(doc);
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].path);
		free(files[i].build_id);
	}
	free(files);
	return rc;
}
