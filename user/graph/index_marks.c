#define _GNU_SOURCE
/* The references paths treat apart, marked between the index's passes:
 * referents crossed last (VisualVM's rule), the library leaks' known
 * references (a table, and --library-leak), the ones --ignore names. */
#include "graph/index_build.h"
#include "util/hugemem.h"

/* VisualVM's rule for a referent: it does not hold when its Reference is a
 * Weak, Soft, Final or Phantom one (or a subclass), so long as the dump has
 * at least four such classes; any other Reference's referent (Dalvik's
 * FinalizerReference) holds. Those are marked to be crossed last, so a
 * path uses them only when there is no other way (as Shark never does). */
int ixb_mark_late_referents(struct ooms_index *ix)
{
	static const char *const kinds[] = {"java.lang.ref.WeakReference", "java.lang.ref.SoftReference",
					    "java.lang.ref.FinalReference", "java.lang.ref.PhantomReference"};
	uint32_t special = 0;

	for (uint32_t c = 0; c < ix->nclasses; c++)
		for (size_t k = 0; k < 4; k++)
			if (ooms_index_is_a(ix, c, kinds[k])) {
				special++;
				break;
			}
	for (uint32_t c = 0; c < ix->nclasses; c++) {
		int is_special = 0;

		if (ix->classes[c].weak_slot == OOMS_NONE)
			continue;
		for (size_t k = 0; k < 4 && special >= 4 && !is_special; k++)
			is_special = ooms_index_is_a(ix, c, kinds[k]);
		ix->classes[c].referent_late = !is_special;
	}
	return 0;
}

/* References that leak through no fault of the app (the Android framework
 * keeping a view, an activity record, a context), crossed last by the path
 * search: a leak reached only through one is a library leak. Written from
 * public knowledge of these platform bugs; --library-leak adds more. */
static const struct {
	const char *ref, *why;
} library_table[] = {
	{"android.view.inputmethod.InputMethodManager#mServedView",
	 "InputMethodManager keeps the last focused view after its activity is destroyed (Android up to 9)"},
	{"android.view.inputmethod.InputMethodManager#mNextServedView",
	 "InputMethodManager keeps the view to focus next after its activity is destroyed (Android up to 9)"},
	{"android.view.inputmethod.InputMethodManager#mCurRootView",
	 "InputMethodManager keeps the root view of the last focused window"},
	{"android.app.ActivityThread$ActivityClientRecord#nextIdle",
	 "ActivityThread's idle list keeps a destroyed activity's record until the main thread idles"},
	{"android.media.AudioManager#mContext_static",
	 "AudioManager keeps the first Context it was made with in a static field (Android 6)"},
	{"android.animation.LayoutTransition$1#val$parent",
	 "LayoutTransition's listener keeps the parent view until its animation ends"},
	{"android.os.Message#obj",
	 "a Message still in a queue, or recycled without being cleared, keeps its obj (Android up to 4.4)"},
	/* a class alone: GC roots that are its instances */
	{"android.os.Binder",
	 "a Binder held by native code (a JNI global root) lives as long as another process holds its proxy: "
	 "a bound service's binder keeps what it references until unbindService (LeakCanary 1.x left these roots out)"},
};

/* Marks the GC roots that are instances of class c (or a subclass). */
static int mark_root_class(struct build *b, uint32_t c, uint8_t mark)
{
	struct ooms_index *ix = b->ix;
	void *q = huge_realloc(ix->root_classes, (ix->nroot_classes + 1) * sizeof(*ix->root_classes));

	if (!q)
		return ixb_fail(b, -ENOMEM, "out of memory");
	ix->root_classes = q;
	ix->root_classes[ix->nroot_classes].cls = c;
	ix->root_classes[ix->nroot_classes++].mark = mark;
	return 0;
}

/* Marks what a spec names: 'Class#field', an instance field declared in
 * Class (so in its subclasses' instances too) or a static of Class; or
 * 'Class', the GC roots that are instances of Class. 0; 1 when the dump
 * has no such class or field (must: refused). */
static int mark_ref(struct build *b, const char *spec, uint8_t mark, int must)
{
	struct ooms_index *ix = b->ix;
	const char *hash = strchr(spec, '#'), *opt = mark == OOMS_MARK_IGNORE ? "--ignore" : "--library-leak";
	size_t clen = hash ? (size_t)(hash - spec) : strlen(spec);
	char cls[512];
	uint32_t c, hits = 0;

	if (!clen || (hash && !hash[1]) || clen >= sizeof(cls))
		return must ? ixb_fail(b, -EINVAL, "%s wants Class#field or Class: %s", opt, spec) : 0;
	snprintf(cls, sizeof(cls), "%.*s", (int)clen, spec);
	if ((c = ooms_index_class_by_name(ix, cls)) == OOMS_NONE)
		return must ? ixb_fail(b, -EINVAL, "%s %s: no class %s in this dump", opt, spec, cls) : 0;
	if (!hash)
		return mark_root_class(b, c, mark);
	for (uint32_t k = 0; k < ix->nslots; k++)
		if (ix->slots[k].declared_in == c && !strcmp(ooms_index_str(ix, ix->fields[ix->slots[k].field].name), hash + 1))
			ix->slots[k].ignored = mark, hits++;
	for (uint32_t i = 0; i < ix->classes[c].nstatics; i++) {
		struct ooms_static *st = &ix->statics[ix->classes[c].statics_at + i];

		if (!strcmp(ooms_index_str(ix, st->name), hash + 1))
			st->ignored = mark, hits++;
	}
	if (!hits && must)
		return ixb_fail(b, -EINVAL, "%s %s: %s has no reference field %s", opt, spec, cls, hash + 1);
	return 0;
}

/* A library reference's description, kept in ix->library; its mark. */
static int add_library(struct build *b, const char *ref, const char *why, uint8_t *mark)
{
	struct ooms_index *ix = b->ix;
	char **l = huge_realloc(ix->library, (ix->nlibrary + 1) * sizeof(*l)); /* a handful: exact size */

	if (!l)
		return ixb_fail(b, -ENOMEM, "out of memory");
	ix->library = l;
	if (ix->nlibrary + OOMS_MARK_LIBRARY > UINT8_MAX || asprintf(&l[ix->nlibrary], "%s: %s", ref, why) < 0)
		return ixb_fail(b, -ENOMEM, "too many library leak references");
	*mark = (uint8_t)(OOMS_MARK_LIBRARY + ix->nlibrary++);
	return 0;
}

/* The path marks: the built-in library table where the dump has its
 * classes, --library-leak, then --ignore (which wins). */
int ixb_mark_paths(struct build *b)
{
	uint8_t mark;
	int e;

	for (size_t k = 0; k < sizeof(library_table) / sizeof(library_table[0]); k++) {
		char cls[256];
		const char *hash = strchr(library_table[k].ref, '#');
		int clen = hash ? (int)(hash - library_table[k].ref) : (int)strlen(library_table[k].ref);

		snprintf(cls, sizeof(cls), "%.*s", clen, library_table[k].ref);
		if (ooms_index_class_by_name(b->ix, cls) == OOMS_NONE)
			continue;
		if ((e = add_library(b, library_table[k].ref, library_table[k].why, &mark)) ||
		    (e = mark_ref(b, library_table[k].ref, mark, 0)))
			return e;
	}
	for (size_t k = 0; k < b->nlibrary; k++)
		if ((e = add_library(b, b->library[k], "named by --library-leak", &mark)) ||
		    (e = mark_ref(b, b->library[k], mark, 1)))
			return e;
	for (size_t k = 0; k < b->nignores; k++)
		if ((e = mark_ref(b, b->ignores[k], OOMS_MARK_IGNORE, 1)))
			return e;
	return 0;
}
