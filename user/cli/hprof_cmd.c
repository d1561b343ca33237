/* `oomscope hprof check|strip|restore`: the hprof library from the command line. */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "util/clock.h"
#include "cli/opts.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hprof/io.h"
#include "hprof/matrix.h"
#include "hprof/parser.h"
#include "hprof/stats.h"
#include "hprof/transform.h"
#include "hprof/writer.h"
#include "util/atomic_file.h"

#define READ_CHUNK (1u << 20)
/* a heap record up to this size is written back as one record, so a strip
 * and a restore give the input's record sizes back (HotSpot 11 writes one
 * 14 MB segment); the buffer grows only as far as the input needs */
#define SEGMENT_BYTES (64u << 20)

static const char usage_head[] =
	"usage: oomscope hprof check [--json] FILE\n"
	"       oomscope hprof strip [--mode app|koom|matrix] [--no-strings] [--gzip|--xz] [--level N] IN OUT\n"
	"       oomscope hprof restore IN OUT\n"
	"\n"
	"Heap dumps (hprof: JVM 1.0.1/1.0.2, Android 1.0.3; 4- or 8-byte ids).\n"
	"IN and OUT may be '-' (standard input/output); gzip and xz input are read as is.\n";

/* One table per subcommand: getopt_long's options and --help's lines. */
static const struct cli_opt check_options[] = {
	CLI_HEADING("check: validates the whole file and summarizes it: records and heap dump\n"
		    "sub-records by tag (count, bytes), heaps (app/zygote/image on Android),\n"
		    "objects, and how many bytes are primitive array contents."),
	{"json", 0, no_argument, 'j', NULL, "the summary as one JSON object"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

static const struct cli_opt strip_options[] = {
	CLI_HEADING("strip: writes a smaller dump for analysis, marked as stripped (header\n"
		    "\"OOMSCOPE STRIPPED <mode> <original format>\")."),
	{"mode", 0, required_argument, 'm', "MODE",
	 "app (default): every object and reference kept,\nwith every array's length (shallow sizes stay\n"
	 "right); primitive array contents dropped but for\nchar and byte arrays up to 1 KiB (String contents)\n"
	 "koom: as KOOM, also drops zygote and image heap\nobjects entirely\n"
	 "matrix: as Matrix, keeps String backing arrays'\ncontents and one copy of identical Bitmap pixel\n"
	 "buffers (needs a file: two passes)"},
	{"no-strings", 0, no_argument, 'S', NULL,
	 "drop small char and byte arrays' contents too:\nthe smallest file, but names, keys and other\nString values read as empty"},
	{"gzip", 0, no_argument, 'z', NULL, "compress while streaming (zlib)"},
	{"xz", 0, no_argument, 'x', NULL, "compress with liblzma: smaller and faster on dumps"},
	{"level", 0, required_argument, 'l', "N", "gzip 1..9 (default 6), xz 0..9 (default 0)"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

static const struct cli_opt restore_options[] = {
	CLI_HEADING("restore: turns a stripped dump back into a standard one: removed contents\n"
		    "come back zero-filled at their original lengths."),
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

static void usage(FILE *f)
{
	fputs(usage_head, f);
	cli_opts_help(check_options, f);
	cli_opts_help(strip_options, f);
	cli_opts_help(restore_options, f);
	fputs("\nOutput files are created 0600 and appear only when complete.\n"
	      "\n"
	      "examples:\n"
	      "  oomscope hprof check app.hprof\n"
	      "  oomscope hprof strip --xz app.hprof app.hprof.xz\n"
	      "  oomscope hprof restore app.hprof.xz restored.hprof\n", f);
}

#define bad(fmt, arg) cli_usage_error("hprof", fmt, arg)

/* Progress on a terminal, at most twice a second. */
struct progress {
	const char *what;
	uint64_t total; /* input size, 0 if unknown */
	double last;
	int on;
};


static void progress_show(struct progress *pr, uint64_t done, int final)
{
	double t = mono_s();

	if (!pr->on || (!final && t - pr->last < 0.5))
		return;
	pr->last = t;
	if (pr->total)
		fprintf(stderr, "\r%s: %" PRIu64 " / %" PRIu64 " MB (%.0f%%)", pr->what, done >> 20, pr->total >> 20,
			100.0 * done / pr->total);
	else
		fprintf(stderr, "\r%s: %" PRIu64 " MB", pr->what, done >> 20);
	if (final)
		fputc('\n', stderr);
}

static int open_input(const char *path, int *fd, uint64_t *size)
{
	struct stat st;

	if (!strcmp(path, "-")) {
		*fd = 0;
		*size = 0;
		return 0;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*size = fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	return 0;
}

/* Reads fd through the parser with visitor v. 0, or 1 after printing the error. */
static int parse_fd(int fd, uint64_t size, const char *name, const char *what, const struct hprof_visitor *v,
		    uint64_t *consumed, const char *header_refusal)
{
	struct hprof_source src;
	struct hprof_parser *p = hprof_parser_new(v);
	struct progress pr = {what, size, 0, isatty(2)};
	uint8_t *buf = malloc(READ_CHUNK);
	int rc = 1, e = 0;
	long n;

	if (!p || !buf || hprof_source_open(&src, fd)) {
		fprintf(stderr, "oomscope: hprof %s: out of memory\n", what);
		hprof_parser_free(p);
		free(buf);
		return 1;
	}
	while ((n = hprof_source_read(&src, buf, READ_CHUNK)) > 0) {
		e = hprof_parser_feed(p, buf, (size_t)n);
		if (e)
			break;
		progress_show(&pr, src.bytes_read, 0);
	}
	if (n < 0)
		fprintf(stderr, "oomscope: hprof %s: %s: %s\n", what, name,
			n == -EBADMSG ? "corrupt gzip data" : strerror((int)-n));
	else if (header_refusal && (e == -EINVAL || e == -EALREADY))
		fprintf(stderr, "oomscope: hprof %s: %s: %s\n", what, name, header_refusal);
	else if (e || (e = hprof_parser_finish(p)))
		fprintf(stderr, "oomscope: hprof %s: %s: %s\n", what, name, hprof_parser_error(p));
	else
		rc = 0;
	if (pr.on && pr.last)
		progress_show(&pr, src.bytes_read, 1);
	if (consumed)
		*consumed = hprof_parser_offset(p);
	hprof_source_free(&src);
	hprof_parser_free(p);
	free(buf);
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	struct hprof_stats st;
	struct hprof_visitor v;
	struct option longopts[4];
	char shortopts[8];
	int json = 0, c, fd, e;
	uint64_t size;

	if (cli_opts_getopt(check_options, longopts, 4, "+", shortopts, sizeof(shortopts)))
		return 2; /* the table is wrong: a bug */
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'h') {
			usage(stdout);
			return 0;
		} else
			return cli_opts_error("hprof check", c, argv);
	}
	if (argc - optind != 1)
		return bad("%s", "check needs one FILE");
	if ((e = open_input(argv[optind], &fd, &size))) {
		fprintf(stderr, "oomscope: hprof check: %s: %s\n", argv[optind], strerror(-e));
		return 1;
	}
	hprof_stats_init(&st);
	hprof_stats_visitor(&st, &v);
	e = parse_fd(fd, size, argv[optind], "check", &v, &st.file_bytes, NULL);
	if (fd)
		close(fd);
	if (e)
		return 1;
	hprof_stats_print(&st, stdout, json);
	return 0;
}

struct output {
	int to_stdout;
	struct atomic_file af;
	struct hprof_sink sink;
	struct hprof_writer w;
};

static int output_open(struct output *o, const char *path, int gzip, int level, const char *what)
{
	int e, fd = 1;

	memset(o, 0, sizeof(*o));
	o->to_stdout = !strcmp(path, "-");
	if (!o->to_stdout) {
		if ((e = atomic_open_mode(&o->af, path, 0600))) {
			fprintf(stderr, "oomscope: hprof %s: cannot write %s: %s\n", what, path, strerror(-e));
			return 1;
		}
		fd = fileno(o->af.f);
	}
	if (hprof_sink_open(&o->sink, fd, gzip, level) || hprof_writer_init(&o->w, &o->sink, SEGMENT_BYTES)) {
		fprintf(stderr, "oomscope: hprof %s: out of memory\n", what);
		if (!o->to_stdout)
			atomic_abort(&o->af);
		return 1;
	}
	return 0;
}

/* Commits on success (rc 0), drops the temp file otherwise. Returns rc. */
static int output_close(struct output *o, int rc, const char *path, const char *what)
{
	int e = 0;

	if (!rc && ((e = hprof_writer_finish(&o->w)) || (e = hprof_sink_finish(&o->sink))))
		fprintf(stderr, "oomscope: hprof %s: writing %s: %s\n", what, path, strerror(-e));
	hprof_writer_free(&o->w);
	hprof_sink_free(&o->sink);
	if (o->to_stdout)
		return rc || e ? 1 : 0;
	if (rc || e) {
		atomic_abort(&o->af);
		return 1;
	}
	if ((e = atomic_commit(&o->af))) {
		fprintf(stderr, "oomscope: hprof %s: writing %s: %s\n", what, path, strerror(-e));
		return 1;
	}
	return 0;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return strcmp(a, "-") && strcmp(b, "-") && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int run_transform(enum hprof_op op, const char *in, const char *out, int gzip, int level, int text)
{
	const char *what = op == HPROF_OP_RESTORE ? "restore" : "strip";
	struct hprof_transform t;
	struct hprof_visitor v;
	struct hprof_idset keep;
	struct output o;
	uint64_t size;
	int fd, e, rc, have_keep = 0;
	double t0 = mono_s();

	if (same_file(in, out))
		return bad("%s", "IN and OUT are the same file");
	if ((e = open_input(in, &fd, &size))) {
		fprintf(stderr, "oomscope: hprof %s: %s: %s\n", what, in, strerror(-e));
		return 1;
	}
	if (op == HPROF_OP_STRIP_MATRIX) {
		/* first pass: which arrays to keep */
		if (fd == 0 || lseek(fd, 0, SEEK_SET) != 0) {
			fprintf(stderr, "oomscope: hprof strip: matrix mode reads its input twice: give a file, not a pipe\n");
			if (fd)
				close(fd);
			return 1;
		}
		if (hprof_matrix_scan(fd, in, &keep, stderr)) {
			close(fd);
			return 1;
		}
		have_keep = 1;
		lseek(fd, 0, SEEK_SET);
	}
	if (output_open(&o, out, gzip, level, what)) {
		if (fd)
			close(fd);
		if (have_keep)
			hprof_idset_free(&keep);
		return 1;
	}
	hprof_transform_visitor(&t, op, &o.w, have_keep ? &keep : NULL, &v);
	if (!text)
		t.text_bytes = 0;
	rc = parse_fd(fd, size, in, what, &v, NULL, op == HPROF_OP_RESTORE ? "not a stripped dump (nothing to restore)"
						      : "already stripped (strip the original dump)");
	if (fd)
		close(fd);
	rc = output_close(&o, rc, out, what);
	if (!rc && isatty(2))
		fprintf(stderr, "%s: %" PRIu64 " MB -> %" PRIu64 " MB in %.1f s (%s)\n", what, size >> 20,
			o.sink.bytes_out >> 20, mono_s() - t0, hprof_op_mode(op));
	if (have_keep)
		hprof_idset_free(&keep);
	return rc;
}

static int cmd_strip(int argc, char **argv, int restore)
{
	enum hprof_op op = restore ? HPROF_OP_RESTORE : HPROF_OP_STRIP_APP;
	int gzip = HPROF_PLAIN, level = -1, c;
	struct option longopts[9];
	char shortopts[9];
	int text = 1;

	if (cli_opts_getopt(restore ? restore_options : strip_options, longopts, 9, "+", shortopts, sizeof(shortopts)))
		return 2; /* the table is wrong: a bug */
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "app"))
				op = HPROF_OP_STRIP_APP;
			else if (!strcmp(optarg, "koom"))
				op = HPROF_OP_STRIP_KOOM;
			else if (!strcmp(optarg, "matrix"))
				op = HPROF_OP_STRIP_MATRIX;
			else
				return bad("unknown mode '%s' (app, koom or matrix)", optarg);
			break;
		case 'z': gzip = HPROF_GZIP; break;
		case 'x': gzip = HPROF_XZ; break;
		case 'S': text = 0; break;
		case 'l': {
			char *end;

			level = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || level < 0 || level > 9)
				return bad("invalid --level '%s' (0..9)", optarg);
			break;
		}
		case 'h': usage(stdout); return 0;
		default: return cli_opts_error(restore ? "hprof restore" : "hprof strip", c, argv);
		}
	}
	if (argc - optind != 2)
		return bad("%s", restore ? "restore needs IN and OUT" : "strip needs IN and OUT");
	if (level >= 0 && gzip == HPROF_PLAIN)
		return bad("%s", "--level goes with --gzip or --xz");
	if (gzip == HPROF_GZIP && level == 0)
		return bad("%s", "gzip levels are 1..9");
	if (level < 0)
		level = gzip == HPROF_XZ ? 0 : 6;
	return run_transform(op, argv[optind], argv[optind + 1], gzip, level, text);
}

int cmd_hprof(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub || !strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		usage(sub ? stdout : stderr);
		return sub ? 0 : 2;
	}
	if (!strcmp(sub, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(sub, "strip"))
		return cmd_strip(argc - 1, argv + 1, 0);
	if (!strcmp(sub, "restore"))
		return cmd_strip(argc - 1, argv + 1, 1);
	return bad("unknown hprof command '%s'", sub);
}
