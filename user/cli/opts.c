#include "cli/opts.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

#define HELP_COLUMN 27

int cli_opts_getopt(const struct cli_opt *t, struct option *longopts, size_t nlong, const char *prefix,
		    char *shortopts, size_t shortlen)
{
	size_t nl = 0, ns = strlen(prefix);

	if (ns + 2 > shortlen)
		return -1;
	memcpy(shortopts, prefix, ns);
	shortopts[ns++] = ':'; /* a missing value comes back as ':', not '?' */
	shortopts[ns] = 0;
	opterr = 0;            /* cli_opts_error says it, in one line */
	for (; t->name || t->help; t++) {
		if (!t->name)
			continue;
		if (nl + 1 >= nlong)
			return -1;
		longopts[nl++] = (struct option){t->name, t->has_arg, NULL, t->id};
		if (t->shortc) {
			if (ns + 3 >= shortlen)
				return -1;
			shortopts[ns++] = (char)t->shortc;
			if (t->has_arg == required_argument)
				shortopts[ns++] = ':';
			shortopts[ns] = 0;
		}
	}
	longopts[nl] = (struct option){NULL, 0, NULL, 0};
	return 0;
}

void cli_opts_help(const struct cli_opt *t, FILE *f)
{
	for (; t->name || t->help; t++) {
		char head[128];
		const char *h = t->help ? t->help : "";
		int n;

		if (!t->name) {
			fprintf(f, "\n%s\n", h);
			continue;
		}
		if (t->shortc)
			n = snprintf(head, sizeof(head), "  -%c, --%s%s%s", t->shortc, t->name, t->arg ? " " : "",
				     t->arg ? t->arg : "");
		else
			n = snprintf(head, sizeof(head), "      --%s%s%s", t->name, t->arg ? " " : "", t->arg ? t->arg : "");
		fputs(head, f);
		/* the help on the same line when there is room, else on the next */
		if (n < HELP_COLUMN)
			fprintf(f, "%*s", HELP_COLUMN - n, "");
		else
			fprintf(f, "\n%*s", HELP_COLUMN, "");
		for (const char *p = h; *p; p++) {
			fputc(*p, f);
			if (*p == '\n' && p[1])
				fprintf(f, "%*s", HELP_COLUMN, "");
		}
		fputc('\n', f);
	}
}

int cli_opts_error(const char *cmd, int c, char **argv)
{
	char shortname[3] = {'-', (char)optopt, 0};

	if (c == ':') /* the option is the last word getopt took */
		return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
	/* an unknown short option (optopt set) may sit in a group ("-qz") */
	return cli_usage_error(cmd, "unknown option %s", optopt > 0 && optopt < 128 ? shortname : argv[optind - 1]);
}

int cli_parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_label(const char *arg, char key[65], const char **value)
{
	static const char key_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : 0;

	if (!klen || klen > 64 || strspn(arg, key_chars) != klen)
		return -1;
	snprintf(key, 65, "%.*s", (int)klen, arg);
	*value = eq + 1;
	return 0;
}
