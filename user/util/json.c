#include "util/json.h"
#include "util/text.h"

#include <inttypes.h>
#include <math.h>

void json_init(struct json *j, FILE *f, int pretty)
{
	j->f = f;
	j->depth = 0;
	j->pretty = pretty;
	j->count[0] = 0;
	j->after_key = 0;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator before a value or a key at the current depth. */
static void before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0) {
		if (j->count[j->depth]++)
			fputc(',', j->f);
		indent(j);
	}
}

static void open_(struct json *j, char c)
{
	before_value(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->count[++j->depth] = 0;
}

static void close_(struct json *j, char c)
{
	int had = j->count[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void json_obj(struct json *j) { open_(j, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr(struct json *j) { open_(j, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

static void put_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else {
				/* valid UTF-8 passes through; a byte that is not (a
				 * thread name cut mid-character, a Latin-1 path) is
				 * U+FFFD, so the file stays valid JSON */
				size_t n = text_utf8_len(p);

				if (n)
					fwrite(p, 1, n, f), p += n - 1;
				else
					fputs("\\ufffd", f);
			}
		}
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	before_value(j);
	put_escaped(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = 1;
}

void json_str(struct json *j, const char *s)
{
	before_value(j);
	if (s)
		put_escaped(j->f, s);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, int64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_uint(struct json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_dbl(struct json *j, double v)
{
	before_value(j);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_fixed(struct json *j, double v, int decimals)
{
	before_value(j);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v);
	else
		fputs("null", j->f);
}

void json_boolean(struct json *j, int v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	before_value(j);
	fputs("null", j->f);
}

void json_hex(struct json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}

void json_end_line(struct json *j)
{
	fputc('\n', j->f);
}

void json_kstr(struct json *j, const char *k, const char *s) { json_key(j, k); json_str(j, s); }
void json_kint(struct json *j, const char *k, int64_t v) { json_key(j, k); json_int(j, v); }
void json_kuint(struct json *j, const char *k, uint64_t v) { json_key(j, k); json_uint(j, v); }
void json_kdbl(struct json *j, const char *k, double v) { json_key(j, k); json_dbl(j, v); }
void json_kfixed(struct json *j, const char *k, double v, int decimals) { json_key(j, k); json_fixed(j, v, decimals); }
void json_kbool(struct json *j, const char *k, int v) { json_key(j, k); json_boolean(j, v); }
void json_khex(struct json *j, const char *k, uint64_t v) { json_key(j, k); json_hex(j, v); }
