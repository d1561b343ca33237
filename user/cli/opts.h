/* One table per command gives both getopt_long's options and the --help
 * lines, so the two cannot drift apart. */
#ifndef OOMSCOPE_CLI_OPTS_H
#define OOMSCOPE_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cli_opt {
	const char *name;  /* long name; NULL: a heading line (help), or the table's end (help NULL too) */
	int shortc;        /* the short letter, or 0 */
	int has_arg;       /* no_argument or required_argument */
	int id;            /* what getopt_long returns for it */
	const char *arg;   /* the argument's name in --help ("SECS"), or NULL */
	const char *help;  /* its help; '\n' starts an indented continuation line */
};

#define CLI_HEADING(text) {NULL, 0, 0, 0, NULL, text}
#define CLI_END {NULL, 0, 0, 0, NULL, NULL}

/* Fills longopts (room for every option and the end) and shortopts
 * ("+:p:i:vh": prefix first, then ':'), from t, and turns getopt's own
 * messages off. 0, or -1 when they do not fit. */
int cli_opts_getopt(const struct cli_opt *t, struct option *longopts, size_t nlong, const char *prefix,
		    char *shortopts, size_t shortlen);
/* After getopt_long returned c, '?' (an unknown option) or ':' (an option
 * without its value): the one-line usage error for cmd; returns 2. */
int cli_opts_error(const char *cmd, int c, char **argv);
/* BYTES with an optional K, M or G suffix (powers of 1024): 0, or -1. */
int cli_parse_bytes(const char *s, uint64_t *out);
/* A label, KEY=VALUE (--label, aggregate's --where and the like): KEY of 1
 * to 64 letters, digits, '_', '.', '-' copied into key, *value pointing
 * into arg. 0, or -1 for anything else. */
int cli_parse_label(const char *arg, char key[65], const char **value);
/* The options' help lines, aligned, with their headings. */
void cli_opts_help(const struct cli_opt *t, FILE *f);

#endif
