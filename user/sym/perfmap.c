/* A JIT's perf map: see perfmap.h. */
#include "sym/perfmap.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

#define NAME_MAX_LEN 1024

struct pm_entry {
	uint64_t start, size;
	uint32_t name;  /* offset in the pool */
	uint32_t seq;   /* line order */
};

struct ooms_perfmap {
	struct pm_entry *e;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
};

static int parse_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; isxdigit((unsigned char)*s); s++, digits++) {
		if (digits == 16)
			return -1;
		x = x * 16 + (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10));
	}
	if (!digits || (*s != ' ' && *s != '\t'))
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	*p = s;
	*v = x;
	return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct pm_entry *x = pa, *y = pb;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int add_line(struct ooms_perfmap *pm, const char *line, uint32_t seq)
{
	uint64_t start, size;
	size_t len;
	struct pm_entry *e;

	if (parse_hex(&line, &start) || parse_hex(&line, &size) || !size || start + size < start)
		return 0; /* not a perf map line: skipped */
	len = strcspn(line, "\r\n");
	if (len > NAME_MAX_LEN)
		len = NAME_MAX_LEN;
	if (pm->pool_len + len + 1 > UINT32_MAX)
		return 0;
	if (vec_reserve((void **)&pm->pool, &pm->pool_cap, pm->pool_len + len + 1, 1) ||
	    !(e = VEC_PUSH(pm->e, pm->n, pm->cap)))
		return -ENOMEM;
	*e = (struct pm_entry){start, size, (uint32_t)pm->pool_len, seq};
	memcpy(pm->pool + pm->pool_len, line, len);
	pm->pool[pm->pool_len + len] = 0;
	pm->pool_len += len + 1;
	return 0;
}

/* Sorted by start; of equal starts the last line kept; each block cut
 * where the next begins. */
static void settle(struct ooms_perfmap *pm)
{
	size_t k = 0;

	if (!pm->n)	/* qsort's base may not be NULL, even for none */
		return;
	qsort(pm->e, pm->n, sizeof(*pm->e), entry_cmp);
	for (size_t i = 0; i < pm->n; i++) {
		if (i + 1 < pm->n && pm->e[i + 1].start == pm->e[i].start)
			continue;
		pm->e[k++] = pm->e[i];
	}
	pm->n = k;
	for (size_t i = 0; i + 1 < pm->n; i++)
		if (pm->e[i].start + pm->e[i].size > pm->e[i + 1].start)
			pm->e[i].size = pm->e[i + 1].start - pm->e[i].start;
}

int ooms_perfmap_read(FILE *f, struct ooms_perfmap **out)
{
	struct ooms_perfmap *pm = calloc(1, sizeof(*pm));
	char *line = NULL;
	size_t cap = 0;
	uint32_t seq = 0;
	int e = 0;

	if (!pm)
		return -ENOMEM;
	errno = 0;
	while (getline(&line, &cap, f) >= 0) {
		if (pm->n == OOMS_PERFMAP_MAX)
			break;
		if ((e = add_line(pm, line, seq++)))
			break;
	}
	if (!e && ferror(f))
		e = errno ? -errno : -EIO;
	free(line);
	if (e) {
		ooms_perfmap_free(pm);
		return e;
	}
	settle(pm);
	*out = pm;
	return 0;
}

void ooms_perfmap_free(struct ooms_perfmap *pm)
{
	if (!pm)
		return;
	free(pm->e);
	free(pm->pool);
	free(pm);
}

size_t ooms_perfmap_count(const struct ooms_perfmap *pm)
{
	return pm ? pm->n : 0;
}

const char *ooms_perfmap_find(const struct ooms_perfmap *pm, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi;

	if (!pm || !pm->n)
		return NULL;
	hi = pm->n;
	while (hi - lo > 1) { /* the last entry starting at or before addr */
		size_t mid = lo + (hi - lo) / 2;

		if (pm->e[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (pm->e[lo].start > addr || addr - pm->e[lo].start >= pm->e[lo].size)
		return NULL;
	if (start)
		*start = pm->e[lo].start;
	return pm->pool + pm->e[lo].name;
}

enum ooms_pm_kind ooms_perfmap_kind(const char *name, char *method, size_t len)
{
	const char *sp, *paren;

	if (!strcmp(name, "Interpreter"))
		return OOMS_PM_INTERPRETER;
	/* "RET Class.method(ARGS)": a return type, a space, a dotted name, arguments */
	paren = strchr(name, '(');
	sp = strchr(name, ' ');
	if (!paren || !sp || sp > paren || !memchr(sp + 1, '.', (size_t)(paren - sp - 1)) || name[strlen(name) - 1] != ')')
		return OOMS_PM_OTHER;
	if (method && len)
		snprintf(method, len, "%s", sp + 1);
	return OOMS_PM_METHOD;
}
