/* Class layouts through JVMTI (hs_layout.h).
 *
 * JVMTI field indices (JVMTI spec, FollowReferences; HotSpot's ClassFieldMap
 * numbers them the same way): for a class C, list the fields of every
 * interface C implements (its own, its superclasses', and their
 * superinterfaces'), then the fields of java.lang.Object, ... , C's super, C,
 * each class's fields (static and instance) in GetClassFields order; the
 * index is the position in that list. For an interface I, the fields of its
 * superinterfaces, then I's own. */
#define _GNU_SOURCE
#include "shim/hs_layout.h"
#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The classes and loaders tagged, kept as global references to untag them. */
static jobject *tagged;
static size_t ntagged;

unsigned hs_type_size(uint8_t type)
{
	switch (type) {
	case HT_BOOLEAN:
	case HT_BYTE:
		return 1;
	case HT_CHAR:
	case HT_SHORT:
		return 2;
	case HT_FLOAT:
	case HT_INT:
		return 4;
	default: /* object (8-byte ids), double, long */
		return 8;
	}
}

static uint8_t sig_type(const char *sig)
{
	switch (sig[0]) {
	case 'Z': return HT_BOOLEAN;
	case 'C': return HT_CHAR;
	case 'F': return HT_FLOAT;
	case 'D': return HT_DOUBLE;
	case 'B': return HT_BYTE;
	case 'S': return HT_SHORT;
	case 'I': return HT_INT;
	case 'J': return HT_LONG;
	default: return HT_OBJECT;
	}
}

static uint32_t add_string(struct hs_layout *l, const char *s, size_t *cap)
{
	if (vec_reserve((void **)&l->strings, cap, (size_t)l->nstrings + 1, sizeof(*l->strings)))
		return UINT32_MAX;
	l->strings[l->nstrings] = strdup(s);
	return l->strings[l->nstrings] ? l->nstrings++ : UINT32_MAX;
}

/* "Ljava/lang/String;" -> "java/lang/String"; arrays stay as they are. */
static char *class_name(const char *sig)
{
	size_t n = strlen(sig);
	char *name, *dot;

	if (sig[0] == 'L' && n >= 2 && sig[n - 1] == ';')
		name = strndup(sig + 1, n - 2);
	else
		name = strdup(sig);
	/* a hidden class (a lambda's): JVMTI writes "Foo$$Lambda$12.0x0000...",
	 * HotSpot's own dump "Foo$$Lambda$12+0x0000..." */
	if (name && (dot = strrchr(name, '.')) && !strncmp(dot, ".0x", 3) && !strchr(dot, '/'))
		*dot = '+';
	return name;
}

static int keep_ref(JNIEnv *jni, jobject o)
{
	static size_t cap;

	if (vec_reserve((void **)&tagged, &cap, ntagged + 1, sizeof(*tagged)))
		return -1;
	/* weak: a strong global reference would be a GC root in the walk */
	tagged[ntagged] = (*jni)->NewWeakGlobalRef(jni, o);
	return tagged[ntagged++] ? 0 : -1;
}

static jlong tag_of(jvmtiEnv *jvmti, jobject o)
{
	jlong t = 0;

	if (o)
		(*jvmti)->GetTag(jvmti, o, &t);
	return t;
}

/* Adds the tags of the interfaces of k (and their superinterfaces) to set. */
static void add_interfaces(jvmtiEnv *jvmti, JNIEnv *jni, jclass k, jlong *set, uint32_t *n, uint32_t cap)
{
	jint count = 0;
	jclass *ifs = NULL;

	if ((*jvmti)->GetImplementedInterfaces(jvmti, k, &count, &ifs) != JVMTI_ERROR_NONE)
		return;
	for (jint i = 0; i < count; i++) {
		jlong t = tag_of(jvmti, ifs[i]);
		uint32_t j;

		for (j = 0; j < *n && set[j] != t; j++)
			;
		if (t && j == *n && *n < cap) {
			set[(*n)++] = t;
			add_interfaces(jvmti, jni, ifs[i], set, n, cap);
		}
		(*jni)->DeleteLocalRef(jni, ifs[i]);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)ifs);
}

/* Declared fields of k into c (names as strings). */
static int read_fields(jvmtiEnv *jvmti, jclass k, struct hs_layout *l, struct hs_class *c, size_t *scap,
		       uint8_t **order_static)
{
	jint n = 0;
	jfieldID *f = NULL;

	if ((*jvmti)->GetClassFields(jvmti, k, &n, &f) != JVMTI_ERROR_NONE)
		return 0; /* arrays, primitive classes: no fields */
	c->statics = calloc(n ? n : 1, sizeof(*c->statics));
	c->inst = calloc(n ? n : 1, sizeof(*c->inst));
	*order_static = calloc(n ? n : 1, 1);
	if (!c->statics || !c->inst || !*order_static)
		return -1;
	for (jint i = 0; i < n; i++) {
		char *name = NULL, *sig = NULL;
		jint mod = 0;
		struct hs_field fl;

		(*jvmti)->GetFieldName(jvmti, k, f[i], &name, &sig, NULL);
		(*jvmti)->GetFieldModifiers(jvmti, k, f[i], &mod);
		fl.name = add_string(l, name ? name : "?", scap);
		fl.type = sig ? sig_type(sig) : HT_OBJECT;
		(*order_static)[i] = (mod & 0x0008) != 0; /* ACC_STATIC */
		if ((*order_static)[i])
			c->statics[c->nstatic++] = fl;
		else
			c->inst[c->ninst++] = fl;
		(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)f);
	return 0;
}

static uint32_t field_count(const struct hs_class *c)
{
	return c->nstatic + c->ninst;
}

/* Over 100 lines on purpose: one pass over the loaded classes whose JVMTI
 * calls must come in this order, each result freed before the next class. */
int hs_layout_gather(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_layout *l, char *why, size_t why_len)
{
	jint n = 0;
	jclass *ks = NULL;
	size_t scap = 0;
	uint8_t **order = NULL;  /* per class: is_static per declared field, GetClassFields order */
	jlong **ifs = NULL;      /* per class: tags of the interfaces it implements */
	uint32_t *nifs = NULL;
	jlong *set = NULL;
	int rc = -1;

	memset(l, 0, sizeof(*l));
	if ((*jvmti)->GetLoadedClasses(jvmti, &n, &ks) != JVMTI_ERROR_NONE || n <= 0) {
		snprintf(why, why_len, "GetLoadedClasses failed");
		return -1;
	}
	l->nclasses = (uint32_t)n;
	l->classes = calloc(n, sizeof(*l->classes));
	order = calloc(n, sizeof(*order));
	ifs = calloc(n, sizeof(*ifs));
	nifs = calloc(n, sizeof(*nifs));
	set = malloc(sizeof(*set) * 4096);
	if (!l->classes || !order || !ifs || !nifs || !set)
		goto oom;
	/* 1. tags first: supers and interfaces are found by tag */
	for (jint i = 0; i < n; i++) {
		if ((*jvmti)->SetTag(jvmti, ks[i], (jlong)i + 1) != JVMTI_ERROR_NONE || keep_ref(jni, ks[i])) {
			snprintf(why, why_len, "SetTag on a class failed");
			goto out;
		}
	}
	l->next_tag = (jlong)n + 1;
	/* 2. names, supers, loaders, fields */
	for (jint i = 0; i < n; i++) {
		struct hs_class *c = &l->classes[i];
		char *sig = NULL;
		jint mod = 0;
		jclass sup;
		jobject loader = NULL;

		(*jvmti)->GetClassSignature(jvmti, ks[i], &sig, NULL);
		c->name = class_name(sig ? sig : "?");
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
		if (!c->name || (c->name_str = add_string(l, c->name, &scap)) == UINT32_MAX)
			goto oom;
		if (!strcmp(c->name, "java/lang/Class"))
			l->class_class_tag = (jlong)i + 1;
		c->is_array = c->name[0] == '[';
		if (c->is_array && c->name[1] && !c->name[2])
			c->prim_array_type = sig_type(c->name + 1);
		(*jvmti)->GetClassModifiers(jvmti, ks[i], &mod);
		c->is_interface = (mod & 0x0200) != 0; /* ACC_INTERFACE */
		sup = (*jni)->GetSuperclass(jni, ks[i]);
		c->super = sup ? (int32_t)tag_of(jvmti, sup) - 1 : -1;
		if (sup)
			(*jni)->DeleteLocalRef(jni, sup);
		if ((*jvmti)->GetClassLoader(jvmti, ks[i], &loader) == JVMTI_ERROR_NONE && loader) {
			c->loader_tag = tag_of(jvmti, loader);
			if (!c->loader_tag) {
				c->loader_tag = l->next_tag++;
				if ((*jvmti)->SetTag(jvmti, loader, c->loader_tag) != JVMTI_ERROR_NONE ||
				    keep_ref(jni, loader))
					goto oom;
			}
			(*jni)->DeleteLocalRef(jni, loader);
		}
		if (read_fields(jvmti, ks[i], l, c, &scap, &order[i]))
			goto oom;
		if (!c->is_array) {
			uint32_t ns = 0;

			for (jclass k = ks[i]; k;) { /* interfaces of C and of every superclass */
				jclass sk;

				add_interfaces(jvmti, jni, k, set, &ns, 4096);
				sk = (*jni)->GetSuperclass(jni, k);
				if (k != ks[i])
					(*jni)->DeleteLocalRef(jni, k);
				k = sk;
			}
			ifs[i] = malloc((ns ? ns : 1) * sizeof(jlong));
			if (!ifs[i])
				goto oom;
			memcpy(ifs[i], set, ns * sizeof(jlong));
			nifs[i] = ns;
		}
	}
	/* 3. field index maps */
	for (jint i = 0; i < n; i++) {
		struct hs_class *c = &l->classes[i];
		uint32_t nif = 0, total, base, off;
		int32_t chain[256];
		int depth = 0;

		if (c->is_array)
			continue;
		for (uint32_t j = 0; j < nifs[i]; j++)
			if (ifs[i][j] >= 1 && ifs[i][j] <= n)
				nif += field_count(&l->classes[ifs[i][j] - 1]);
		if (c->is_interface) {
			/* the superinterfaces' fields, then I's own */
			chain[depth++] = i;
		} else {
			for (int32_t k = i; k >= 0 && depth < 256; k = l->classes[k].super)
				chain[depth++] = k;
		}
		total = nif;
		for (int d = 0; d < depth; d++)
			total += field_count(&l->classes[chain[d]]);
		c->nslots = total;
		c->slots = calloc(total ? total : 1, sizeof(*c->slots));
		if (!c->slots)
			goto oom;
		/* the instance record: C's fields, then its super's, ..., Object's */
		off = 0;
		for (int d = 0; d < depth; d++) {
			struct hs_class *k = &l->classes[chain[d]];

			for (uint32_t f = 0; f < k->ninst; f++)
				off += hs_type_size(k->inst[f].type);
		}
		c->inst_bytes = c->is_interface ? 0 : off;
		/* indices: interfaces' fields, then Object ... C, each in declared order */
		base = nif;
		off = c->inst_bytes;
		for (int d = depth - 1; d >= 0; d--) {
			struct hs_class *k = &l->classes[chain[d]];
			uint32_t si = 0, ii = 0, kbytes = 0;
			const uint8_t *st = order[chain[d]];

			for (uint32_t f = 0; f < k->ninst; f++)
				kbytes += hs_type_size(k->inst[f].type);
			off -= kbytes; /* where class k's instance fields start in the record */
			for (uint32_t f = 0, at = off; f < field_count(k); f++) {
				struct hs_slot *s = &c->slots[base + f];

				s->valid = 1;
				if (st && st[f]) {
					s->is_static = 1;
					s->type = k->statics[si].type;
					s->at = (int32_t)si++;
				} else {
					s->type = k->inst[ii].type;
					s->at = (int32_t)at;
					at += hs_type_size(k->inst[ii++].type);
				}
			}
			base += field_count(k);
		}
	}
	rc = 0;
	goto out;
oom:
	snprintf(why, why_len, "out of memory gathering class layouts");
out:
	for (jint i = 0; i < n; i++) {
		free(order ? order[i] : NULL);
		free(ifs ? ifs[i] : NULL);
		(*jni)->DeleteLocalRef(jni, ks[i]);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)ks);
	free(order);
	free(ifs);
	free(nifs);
	free(set);
	return rc;
}

void hs_layout_release(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_layout *l)
{
	for (size_t i = 0; i < ntagged; i++) {
		jobject o = (*jni)->NewLocalRef(jni, tagged[i]); /* NULL once collected */

		if (o) {
			(*jvmti)->SetTag(jvmti, o, 0);
			(*jni)->DeleteLocalRef(jni, o);
		}
		(*jni)->DeleteWeakGlobalRef(jni, tagged[i]);
	}
	ntagged = 0;
	for (uint32_t i = 0; i < l->nclasses; i++) {
		free(l->classes[i].name);
		free(l->classes[i].statics);
		free(l->classes[i].inst);
		free(l->classes[i].slots);
	}
	free(l->classes);
	for (uint32_t i = 0; i < l->nstrings; i++)
		free(l->strings[i]);
	free(l->strings);
	memset(l, 0, sizeof(*l));
}
