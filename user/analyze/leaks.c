#include "analyze/leaks.h"
#include "util/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ooms_leak_rule *add(struct ooms_leak_rules *r)
{
	if (vec_reserve((void **)&r->rules, &r->cap, r->n + 1, sizeof(*r->rules)))
		return NULL;
	memset(&r->rules[r->n], 0, sizeof(r->rules[0]));
	r->rules[r->n].probe1 = r->rules[r->n].probe2 = -1;
	return &r->rules[r->n++];
}

/* Android rules as KOOM and LeakCanary state them (docs/rules.md). */
int ooms_leak_rules_builtin(struct ooms_leak_rules *r, enum ooms_runtime rt, uint32_t bitmap_w, uint32_t bitmap_h)
{
	static const struct {
		const char *cls, *f1, *f2;
		enum ooms_leak_test test;
		uint64_t value;
		const char *reason;
	} android[] = {
		{"android.app.Activity", "mDestroyed", "mFinished", LEAK_F1_OR_F2_TRUE, 0,
		 "Activity Leak: destroyed or finished (mDestroyed/mFinished) but still reachable"},
		{"android.app.Fragment", "mFragmentManager", "mCalled", LEAK_F1_NULL_F2_TRUE, 0,
		 "Fragment Leak: mFragmentManager is null and mCalled, but still reachable"},
		{"androidx.fragment.app.Fragment", "mFragmentManager", "mCalled", LEAK_F1_NULL_F2_TRUE, 0,
		 "Fragment Leak: mFragmentManager is null and mCalled, but still reachable"},
		{"android.support.v4.app.Fragment", "mFragmentManager", "mCalled", LEAK_F1_NULL_F2_TRUE, 0,
		 "Fragment Leak: mFragmentManager is null and mCalled, but still reachable"},
		{"android.graphics.Bitmap", "mWidth", "mHeight", LEAK_AREA_OVER, 0, NULL},
		{"android.view.Window", "mDestroyed", NULL, LEAK_F1_EQ, 1,
		 "Window Leak: destroyed (mDestroyed) but still reachable"},
		{"android.view.ViewRootImpl", "mAdded", NULL, LEAK_F1_EQ, 0,
		 "ViewRootImpl Leak: removed from its window (mAdded false) but still reachable"},
	};

	/* objects LeakCanary watches (1.x, 2.x): on Android and in JVM apps alike */
	static const char *const watchers[] = {"com.squareup.leakcanary.KeyedWeakReference",
					       "leakcanary.KeyedWeakReference"};

	for (size_t i = 0; i < 2; i++) {
		struct ooms_leak_rule *k = add(r);

		if (!k)
			return -ENOMEM;
		k->class_name = watchers[i];
		k->field1 = "referent";
		k->test = LEAK_REFERENT;
		snprintf(k->reason, sizeof(k->reason),
			 "LeakCanary Leak: watched by a %s (LeakCanary %s) and still strongly reachable", watchers[i],
			 i ? "2.x" : "1.x");
	}
	{ /* Matrix's ResourceCanary: a destroyed Activity it watches through mActivityRef */
		struct ooms_leak_rule *k = add(r);

		if (!k)
			return -ENOMEM;
		k->class_name = OOMS_MATRIX_WATCHER;
		k->field1 = "mActivityRef";
		k->test = LEAK_REFERENT_OF;
		snprintf(k->reason, sizeof(k->reason),
			 "Matrix Leak: watched by a %s (Matrix ResourceCanary) and still strongly reachable",
			 OOMS_MATRIX_WATCHER);
	}
	if (rt != RUNTIME_ANDROID)
		return 0;
	for (size_t i = 0; i < sizeof(android) / sizeof(android[0]); i++) {
		struct ooms_leak_rule *k = add(r);

		if (!k)
			return -ENOMEM;
		k->runtime = RUNTIME_ANDROID;
		k->class_name = android[i].cls;
		k->field1 = android[i].f1;
		k->field2 = android[i].f2;
		k->test = android[i].test;
		k->value = android[i].value;
		if (k->test == LEAK_AREA_OVER) {
			k->value = (uint64_t)bitmap_w * bitmap_h;
			snprintf(k->reason, sizeof(k->reason), "Bitmap Size Over Threshold: width x height > %ux%u",
				 bitmap_w, bitmap_h);
		} else {
			snprintf(k->reason, sizeof(k->reason), "%s", android[i].reason);
		}
	}
	return 0;
}

int ooms_leak_rules_add_class_why(struct ooms_leak_rules *r, const char *name, const char *reason)
{
	struct ooms_leak_rule *k = add(r);

	if (!k)
		return -ENOMEM;
	k->class_name = name;
	k->test = LEAK_ALWAYS;
	if (reason)
		snprintf(k->reason, sizeof(k->reason), "%s", reason);
	else
		snprintf(k->reason, sizeof(k->reason), "User Leak: instance of %s (--leak-class)", name);
	return 0;
}

int ooms_leak_rules_add_class(struct ooms_leak_rules *r, const char *name)
{
	return ooms_leak_rules_add_class_why(r, name, NULL);
}

int ooms_leak_rules_add_if(struct ooms_leak_rules *r, const char *expr, struct ooms_err *err)
{
	const char *op = strstr(expr, "==");
	const char *ne = strstr(expr, "!=");
	const char *dot, *val;
	struct ooms_leak_rule *k;
	char *cls, *field, *end;
	uint64_t v;

	if (!op || (ne && ne < op))
		op = ne;
	if (!op)
		return ooms_err_set(err, -EINVAL, "--leak-if '%s': expected Class.field==value or Class.field!=value", expr);
	for (dot = op; dot > expr && *dot != '.'; dot--)
		;
	if (dot == expr || dot + 1 == op)
		return ooms_err_set(err, -EINVAL, "--leak-if '%s': expected a dotted class name, a field and == or !=",
				    expr);
	val = op + 2;
	if (!strcmp(val, "true"))
		v = 1;
	else if (!strcmp(val, "false"))
		v = 0;
	else if (!strcmp(val, "null"))
		v = OOMS_NULL_VALUE;
	else {
		errno = 0;
		v = (uint64_t)strtoll(val, &end, 0);
		if (!*val || *end || errno)
			return ooms_err_set(err, -EINVAL,
					    "--leak-if '%s': the value must be true, false, null or an integer", expr);
	}
	cls = strndup(expr, (size_t)(dot - expr));
	field = strndup(dot + 1, (size_t)(op - dot - 1));
	k = cls && field ? add(r) : NULL;
	if (!k) {
		free(cls);
		free(field);
		return ooms_err_set(err, -ENOMEM, "out of memory");
	}
	k->class_name = cls;
	k->field1 = field;
	k->test = op[0] == '=' ? LEAK_F1_EQ : LEAK_F1_NE;
	k->value = v;
	k->runtime = (enum ooms_runtime)-1; /* owns its strings */
	snprintf(k->reason, sizeof(k->reason), "User Leak: %s (--leak-if)", expr);
	return 0;
}

void ooms_leak_rules_free(struct ooms_leak_rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rules[i].runtime == (enum ooms_runtime)-1) {
			free((char *)r->rules[i].class_name);
			free((char *)r->rules[i].field1);
		}
	free(r->rules);
	memset(r, 0, sizeof(*r));
}

int ooms_leak_probes(struct ooms_leak_rules *r, struct ooms_probe **probes, size_t *nprobes)
{
	size_t n = 0;
	struct ooms_probe *p = calloc(r->n * 2 + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		struct ooms_leak_rule *k = &r->rules[i];

		if (k->field1) {
			k->probe1 = (int)n;
			p[n].class_name = k->class_name;
			p[n++].field_name = k->field1;
		}
		if (k->field2) {
			k->probe2 = (int)n;
			p[n].class_name = k->class_name;
			p[n++].field_name = k->field2;
		}
	}
	*probes = p;
	*nprobes = n;
	return 0;
}

/* A probed value as a signed number (primitive fields) */
static int64_t as_signed(uint64_t v, uint8_t type)
{
	switch (type) {
	case HPROF_T_BYTE: case HPROF_T_BOOLEAN: return (int8_t)v;
	case HPROF_T_SHORT: case HPROF_T_CHAR: return type == HPROF_T_CHAR ? (int64_t)(uint16_t)v : (int16_t)v;
	case HPROF_T_INT: case HPROF_T_FLOAT: return (int32_t)v;
	}
	return (int64_t)v;
}

static int is_null(uint64_t v, uint8_t type)
{
	return type == HPROF_T_OBJECT && v == OOMS_NONE;
}

static int matches(const struct ooms_leak_rule *k, const struct ooms_probe *p1, uint64_t v1, int has2,
		   const struct ooms_probe *p2, uint64_t v2)
{
	switch (k->test) {
	case LEAK_ALWAYS:
		return 1;
	case LEAK_REFERENT: /* decided by ooms_leaks_find */
	case LEAK_REFERENT_OF:
		return 0;
	case LEAK_F1_EQ:
	case LEAK_F1_NE: {
		int eq = k->value == OOMS_NULL_VALUE ? is_null(v1, p1->type)
			 : p1->type != HPROF_T_OBJECT && as_signed(v1, p1->type) == (int64_t)k->value;

		return k->test == LEAK_F1_EQ ? eq : !eq;
	}
	case LEAK_F1_OR_F2_TRUE:
		return (p1->type == HPROF_T_BOOLEAN && v1) || (has2 && p2->type == HPROF_T_BOOLEAN && v2);
	case LEAK_F1_NULL_F2_TRUE:
		return is_null(v1, p1->type) && has2 && p2->type == HPROF_T_BOOLEAN && v2;
	case LEAK_AREA_OVER:
		return has2 && as_signed(v1, p1->type) > 0 && as_signed(v2, p2->type) > 0 &&
		       (uint64_t)as_signed(v1, p1->type) * (uint64_t)as_signed(v2, p2->type) > k->value;
	}
	return 0;
}

static int push(struct ooms_leak **out, size_t *n, size_t *cap, uint32_t node, uint32_t rule)
{
	if (vec_reserve((void **)out, cap, *n + 1, sizeof(**out)))
		return -ENOMEM;
	(*out)[*n].node = node;
	(*out)[*n].library = 0;
	(*out)[*n].watcher = OOMS_NONE;
	(*out)[(*n)++].rule = rule;
	return 0;
}

/* Not a leak however the rules see it: reached only across a finalizer's
 * referent (on its way out), or in ART's image heap (the boot image's
 * objects, never the app's). */
static int is_late(const struct ooms_index *ix, const uint8_t *late, uint32_t n)
{
	return (late && (late[n / 8] >> (n % 8) & 1)) || ooms_heap(ix, n) == HEAP_IMAGE;
}

int ooms_leaks_find(const struct ooms_index *ix, struct ooms_leak_rules *r, const struct ooms_probe *probes,
		    const uint32_t *reached, const uint8_t *late, struct ooms_leak **out, size_t *nout)
{
	uint8_t *flagged = calloc(ix->nodes / 8 + 1, 1), *is = malloc(ix->nclasses + 1);
	size_t cap = 0;
	int e = 0;

	*out = NULL;
	*nout = 0;
	if (!flagged || !is) {
		free(flagged);
		free(is);
		return -ENOMEM;
	}
	for (size_t ri = 0; ri < r->n && !e; ri++) {
		struct ooms_leak_rule *k = &r->rules[ri];

		for (uint32_t c = 0; c < ix->nclasses; c++)
			is[c] = ooms_index_is_a(ix, c, k->class_name);
		k->instances = k->leaks = 0;
		for (uint32_t n = 1; n < ix->nodes; n++)
			if (ooms_kind(ix, n) != NODE_CLASS && ooms_cls(ix, n) != OOMS_NONE && is[ooms_cls(ix, n)])
				k->instances++;
		if (k->test == LEAK_ALWAYS) {
			for (uint32_t n = 1; n < ix->nodes && !e; n++) {
				if (ooms_kind(ix, n) == NODE_CLASS || ooms_cls(ix, n) == OOMS_NONE || !is[ooms_cls(ix, n)] ||
				    reached[n] == OOMS_NONE || (flagged[n / 8] >> (n % 8) & 1) || is_late(ix, late, n))
					continue;
				flagged[n / 8] |= 1 << (n % 8);
				k->leaks++;
				e = push(out, nout, &cap, n, (uint32_t)ri);
			}
			continue;
		}
		if (k->probe1 < 0)
			continue;
		if (k->test == LEAK_REFERENT || k->test == LEAK_REFERENT_OF) { /* the leak is what is watched */
			const struct ooms_probe *p1 = &probes[k->probe1];

			for (size_t i = 0; i < p1->count && !e; i++) {
				uint64_t v = p1->values[i].value;
				uint32_t n = (uint32_t)v;

				if (k->test == LEAK_REFERENT_OF) /* v is a Reference: what it refers to */
					v = n = v < ix->nodes ? ooms_referent_of(ix, (uint32_t)v) : OOMS_NONE;

				if (v == OOMS_NULL_VALUE || v >= ix->nodes || n == OOMS_NONE || reached[n] == OOMS_NONE ||
				    (flagged[n / 8] >> (n % 8) & 1) || is_late(ix, late, n))
					continue;
				flagged[n / 8] |= 1 << (n % 8);
				k->leaks++;
				if (!(e = push(out, nout, &cap, n, (uint32_t)ri)))
					(*out)[*nout - 1].watcher = p1->values[i].node;
			}
			continue;
		}
		{
			const struct ooms_probe *p1 = &probes[k->probe1], *p2 = k->probe2 >= 0 ? &probes[k->probe2] : NULL;
			size_t j = 0;

			/* both value lists are in node order: join them */
			for (size_t i = 0; i < p1->count && !e; i++) {
				uint32_t n = p1->values[i].node;
				uint64_t v2 = 0;
				int has2 = 0;

				while (p2 && j < p2->count && p2->values[j].node < n)
					j++;
				if (p2 && j < p2->count && p2->values[j].node == n) {
					has2 = 1;
					v2 = p2->values[j].value;
				}
				if (reached[n] == OOMS_NONE || (flagged[n / 8] >> (n % 8) & 1) || is_late(ix, late, n) ||
				    !matches(k, p1, p1->values[i].value, has2, p2, v2))
					continue;
				flagged[n / 8] |= 1 << (n % 8);
				k->leaks++;
				e = push(out, nout, &cap, n, (uint32_t)ri);
			}
		}
	}
	free(flagged);
	free(is);
	return e;
}
