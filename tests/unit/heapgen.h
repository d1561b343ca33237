/* Small hand-built heap dumps for the analyzer's unit tests (test_index,
 * test_analyze, test_suspects): a record builder over tests/tools'
 * synth_hprof.h, and "the world", a JVM dump whose answers are worked out
 * by hand in the comments below. Everything is static inline: each test
 * takes what it uses. */
#ifndef OOMSCOPE_TESTS_UNIT_HEAPGEN_H
#define OOMSCOPE_TESTS_UNIT_HEAPGEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../tools/synth_android_art.h"

struct hg_field { const char *name; unsigned type; };
struct hg_static { const char *name; unsigned type; uint64_t value; };

struct hg {
	struct buf b, h;             /* the file's records; the open heap segment's body */
	struct { const char *s; uint64_t sid; } str[128];
	unsigned nstr;
};

static inline void hg_begin(struct hg *g, unsigned id_size, int android)
{
	const char *fmt = android ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2";

	memset(g, 0, sizeof(*g));
	ID = id_size;
	put(&g->b, fmt, strlen(fmt) + 1);
	u4(&g->b, id_size);
	u8(&g->b, 1700000000000ull);
}

/* The id of string s, its STRING record written the first time (before
 * the heap segment that names it: segments go out when flushed). */
static inline uint64_t hg_str(struct hg *g, const char *s)
{
	for (unsigned i = 0; i < g->nstr; i++)
		if (!strcmp(g->str[i].s, s))
			return g->str[i].sid;
	if (g->nstr == sizeof(g->str) / sizeof(g->str[0]))
		abort();
	g->str[g->nstr].s = s;
	g->str[g->nstr].sid = 0x100 + g->nstr;
	string_rec(&g->b, g->str[g->nstr].sid, s);
	return g->str[g->nstr++].sid;
}

static inline void hg_load(struct hg *g, uint32_t serial, uint64_t cid, const char *name)
{
	struct buf r = {0};
	uint64_t sid = hg_str(g, name);

	u4(&r, serial); id(&r, cid); u4(&r, 0); id(&r, sid);
	record(&g->b, HPROF_LOAD_CLASS, &r);
	free(r.p);
}

/* A class dump: no constant pool; statics of any type (value's low bytes). */
static inline void hg_class(struct hg *g, uint64_t cid, uint64_t super, uint64_t loader, uint32_t size,
			    const struct hg_static *st, unsigned nst, const struct hg_field *f, unsigned nf)
{
	uint64_t sids[64];

	if (nst + nf > 64)
		abort();
	for (unsigned i = 0; i < nst; i++) /* names first: their records go before the segment */
		sids[i] = hg_str(g, st[i].name);
	for (unsigned i = 0; i < nf; i++)
		sids[nst + i] = hg_str(g, f[i].name);
	u1(&g->h, HPROF_CLASS_DUMP); id(&g->h, cid); u4(&g->h, 0); id(&g->h, super); id(&g->h, loader);
	id(&g->h, 0); id(&g->h, 0); id(&g->h, 0); id(&g->h, 0);
	u4(&g->h, size);
	u2(&g->h, 0);
	u2(&g->h, nst);
	for (unsigned i = 0; i < nst; i++) {
		unsigned sz = hprof_type_size(st[i].type, ID);

		id(&g->h, sids[i]);
		u1(&g->h, st[i].type);
		for (unsigned k = sz; k-- > 0;)
			u1(&g->h, (unsigned)(st[i].value >> (8 * k)));
	}
	u2(&g->h, nf);
	for (unsigned i = 0; i < nf; i++) {
		id(&g->h, sids[nst + i]);
		u1(&g->h, f[i].type);
	}
}

static inline void hg_inst(struct hg *g, uint64_t oid, uint64_t cid, struct buf *data)
{
	u1(&g->h, HPROF_INSTANCE_DUMP); id(&g->h, oid); u4(&g->h, 0); id(&g->h, cid); u4(&g->h, (uint32_t)data->len);
	if (data->len) /* no memcpy from a buffer never allocated */
		put(&g->h, data->p, data->len);
	data->len = 0;
}

static inline void hg_objarr(struct hg *g, uint64_t oid, uint64_t acid, uint32_t n, const uint64_t *elems)
{
	u1(&g->h, HPROF_OBJ_ARRAY_DUMP); id(&g->h, oid); u4(&g->h, 0); u4(&g->h, n); id(&g->h, acid);
	for (uint32_t i = 0; i < n; i++)
		id(&g->h, elems[i]);
}

/* A byte[] of n bytes (from s, then zeros). */
static inline void hg_bytes(struct hg *g, uint64_t oid, uint32_t n, const char *s)
{
	size_t sl = s ? strlen(s) : 0;

	u1(&g->h, HPROF_PRIM_ARRAY_DUMP); id(&g->h, oid); u4(&g->h, 0); u4(&g->h, n); u1(&g->h, HPROF_T_BYTE);
	for (uint32_t i = 0; i < n; i++)
		u1(&g->h, i < sl ? (uint8_t)s[i] : 0);
}

/* A root record: a and b are what its kind carries (thread serial, frame
 * or trace serial; a JNI global's ref id). */
static inline void hg_root(struct hg *g, unsigned kind, uint64_t oid, uint32_t a, uint32_t b)
{
	u1(&g->h, kind); id(&g->h, oid);
	switch (kind) {
	case HPROF_ROOT_JNI_GLOBAL: id(&g->h, a); break;
	case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_THREAD_OBJECT:
	case HPROF_ROOT_JNI_MONITOR: u4(&g->h, a); u4(&g->h, b); break;
	case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK: u4(&g->h, a); break;
	}
}

static inline void hg_frame(struct hg *g, uint64_t fid, const char *method, const char *source, uint32_t cls_serial,
			    int32_t line)
{
	struct buf r = {0};
	uint64_t m = hg_str(g, method), sig = hg_str(g, "()V"), src = source ? hg_str(g, source) : 0;

	id(&r, fid); id(&r, m); id(&r, sig); id(&r, src); u4(&r, cls_serial); u4(&r, (uint32_t)line);
	record(&g->b, HPROF_STACK_FRAME, &r);
	free(r.p);
}

static inline void hg_trace(struct hg *g, uint32_t serial, uint32_t thread, uint32_t n, const uint64_t *frames)
{
	struct buf r = {0};

	u4(&r, serial); u4(&r, thread); u4(&r, n);
	for (uint32_t i = 0; i < n; i++)
		id(&r, frames[i]);
	record(&g->b, HPROF_STACK_TRACE, &r);
	free(r.p);
}

/* The open heap segment written out as a HEAP_DUMP_SEGMENT. */
static inline void hg_seg(struct hg *g)
{
	if (!g->h.len)
		return;
	u1(&g->b, HPROF_HEAP_DUMP_SEGMENT); u4(&g->b, 0); u4(&g->b, (uint32_t)g->h.len);
	put(&g->b, g->h.p, g->h.len);
	g->h.len = 0;
}

/* The dump's bytes (owned by the caller: free(.p)). */
static inline struct buf hg_end(struct hg *g)
{
	hg_seg(g);
	u1(&g->b, HPROF_HEAP_DUMP_END); u4(&g->b, 0); u4(&g->b, 0);
	free(g->h.p);
	return g->b;
}

static inline int hg_write(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n) {
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

/* ---- the world: a JVM dump with answers known by hand ----
 *   Holder.sessions (static) -> Bag B -> elems Object[N] A -> Session S_i -> data byte[1000]
 *   JNI global -> Registry R -> current -> AuditSession SA (a Session, closed) -> data byte[1000]
 *                            -> backup  -> S_0 (so S_0 is shared: no one object dominates it)
 *   JNI global -> Node N_0 -> next -> ... -> N_19 (-> a missing id) each -> payload byte[100]
 *   thread 1 "main-worker" (a String over a Latin-1 byte[]): locals byte[5000] L (frame 0),
 *     Object O (frame 1) and L again (frame 1); trace Worker.work(Worker.java:42), Thread.run(Native Method)
 *   thread 2 "oom-thrower" (a char[] name): trace OutOfMemoryError.<init>, Big.alloc (compiled)
 *   JNI global -> WeakReference W -> referent X (only weakly reachable)
 *   JNI global -> MyRef MR (a Reference of no known kind) -> referent Z (com.example.Victim)
 *   Object U: garbage. Every class is a sticky root; a root of a missing object is dropped.
 * Session i is closed when i is odd. Three heap segments: roots and classes, the bag, the rest.
 * With 8-byte ids (oops 8, header 16): Session 32, AuditSession 40, Bag, Node, Registry 32,
 * Object 16, String 32, Thread 24, Reference 24, byte[1000] 1024, byte[100] 120,
 * byte[5000] 5024, byte[11] 32, char[11] 48, Object[N] align(20 + 8N). */
enum {
	K_OBJ = 0x1000, K_STR = 0x1008, K_THREAD = 0x1010, K_REF = 0x1018, K_WEAK = 0x1020, K_SOFT = 0x1028,
	K_FINAL = 0x1030, K_PHANTOM = 0x1038, K_HOLDER = 0x1040, K_BAG = 0x1048, K_SESSION = 0x1050,
	K_AUDIT = 0x1058, K_NODE = 0x1060, K_REGISTRY = 0x1068, K_OBJARR = 0x1070, K_MYREF = 0x1078,
	K_VICTIM = 0x1080, K_WORKER = 0x1100, K_OOME = 0x1108,
};
enum {
	O_B = 0x10000, O_A = 0x10008, O_R = 0x10010, O_SA = 0x10018, O_SA_DATA = 0x10020, O_T = 0x10028,
	O_TNAME = 0x10030, O_TNAME_B = 0x10038, O_T2 = 0x10040, O_T2NAME = 0x10048, O_L = 0x10050, O_O = 0x10058,
	O_W = 0x10060, O_X = 0x10068, O_U = 0x10070, O_MR = 0x10078, O_Z = 0x10080, O_MISSING = 0xdead0,
};
#define O_S(i) (0x20000 + 16 * (uint64_t)(i))
#define O_SD(i) (0x20008 + 16 * (uint64_t)(i))
#define O_N(i) (0x30000 + 16 * (uint64_t)(i))
#define O_NP(i) (0x30008 + 16 * (uint64_t)(i))
#define WORLD_CHAIN 20
#define WORLD_CLASSES 17 /* class dumps */
#define WORLD_OBJECTS(n) (17 + 2 * (n) + 2 * WORLD_CHAIN) /* instances and arrays */

static inline struct buf make_world(unsigned id_size, unsigned nsessions)
{
	static const char *const names[] = {
		"java/lang/Object", "java/lang/String", "java/lang/Thread", "java/lang/ref/Reference",
		"java/lang/ref/WeakReference", "java/lang/ref/SoftReference", "java/lang/ref/FinalReference",
		"java/lang/ref/PhantomReference", "com/example/Holder", "com/example/Bag", "com/example/Session",
		"com/example/AuditSession", "com/example/Node", "com/example/Registry", "[Ljava/lang/Object;",
		"com/example/MyRef", "com/example/Victim"};
	const struct hg_field f_str[] = {{"value", HPROF_T_OBJECT}, {"coder", HPROF_T_BYTE}};
	const struct hg_field f_thread[] = {{"name", HPROF_T_OBJECT}};
	const struct hg_field f_ref[] = {{"referent", HPROF_T_OBJECT}};
	const struct hg_field f_bag[] = {{"elems", HPROF_T_OBJECT}, {"size", HPROF_T_INT}};
	const struct hg_field f_session[] = {{"data", HPROF_T_OBJECT}, {"closed", HPROF_T_BOOLEAN}};
	const struct hg_field f_audit[] = {{"since", HPROF_T_LONG}};
	const struct hg_field f_node[] = {{"next", HPROF_T_OBJECT}, {"payload", HPROF_T_OBJECT}};
	const struct hg_field f_registry[] = {{"current", HPROF_T_OBJECT}, {"backup", HPROF_T_OBJECT}};
	const struct hg_static s_holder[] = {{"sessions", HPROF_T_OBJECT, O_B}};
	struct hg g;
	struct buf d = {0};
	uint64_t *elems = calloc(nsessions + 1, sizeof(*elems));
	unsigned idz = id_size;

	hg_begin(&g, id_size, 0);
	for (unsigned i = 0; i < WORLD_CLASSES; i++)
		hg_load(&g, i + 1, K_OBJ + 8 * i, names[i]);
	hg_load(&g, 20, K_WORKER, "com/example/Worker");
	hg_load(&g, 21, K_OOME, "java/lang/OutOfMemoryError");
	hg_frame(&g, 0x900, "work", "Worker.java", 20, 42);
	hg_frame(&g, 0x901, "run", "Thread.java", 3, -3);
	hg_frame(&g, 0x902, "<init>", NULL, 21, -1);
	hg_frame(&g, 0x903, "alloc", "Big.java", 20, -2);
	hg_trace(&g, 1, 1, 2, (const uint64_t[]){0x900, 0x901});
	hg_trace(&g, 2, 2, 2, (const uint64_t[]){0x902, 0x903});

	/* segment 1: roots (thread objects before their frames), classes */
	hg_root(&g, HPROF_ROOT_THREAD_OBJECT, O_T, 1, 1);
	hg_root(&g, HPROF_ROOT_THREAD_OBJECT, O_T2, 2, 2);
	hg_root(&g, HPROF_ROOT_JAVA_FRAME, O_L, 1, 0);
	hg_root(&g, HPROF_ROOT_JAVA_FRAME, O_O, 1, 1);
	hg_root(&g, HPROF_ROOT_JAVA_FRAME, O_L, 1, 1);
	hg_root(&g, HPROF_ROOT_JNI_GLOBAL, O_R, 1, 0);
	hg_root(&g, HPROF_ROOT_JNI_GLOBAL, O_W, 2, 0);
	hg_root(&g, HPROF_ROOT_JNI_GLOBAL, O_N(0), 3, 0);
	hg_root(&g, HPROF_ROOT_JNI_GLOBAL, O_MR, 4, 0);
	hg_root(&g, HPROF_ROOT_JNI_GLOBAL, O_MISSING, 5, 0);
	hg_root(&g, HPROF_UNREACHABLE, O_U, 0, 0);
	for (unsigned i = 0; i < WORLD_CLASSES; i++)
		hg_root(&g, HPROF_ROOT_STICKY_CLASS, K_OBJ + 8 * i, 0, 0);
	hg_class(&g, K_OBJ, 0, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, K_STR, K_OBJ, 0, idz + 1, NULL, 0, f_str, 2);
	hg_class(&g, K_THREAD, K_OBJ, 0, idz, NULL, 0, f_thread, 1);
	hg_class(&g, K_REF, K_OBJ, 0, idz, NULL, 0, f_ref, 1);
	for (uint64_t k = K_WEAK; k <= K_PHANTOM; k += 8)
		hg_class(&g, k, K_REF, 0, idz, NULL, 0, NULL, 0);
	hg_class(&g, K_HOLDER, K_OBJ, 0, 0, s_holder, 1, NULL, 0);
	hg_class(&g, K_BAG, K_OBJ, 0, idz + 4, NULL, 0, f_bag, 2);
	hg_class(&g, K_SESSION, K_OBJ, 0, idz + 1, NULL, 0, f_session, 2);
	hg_class(&g, K_AUDIT, K_SESSION, 0, 8, NULL, 0, f_audit, 1);
	hg_class(&g, K_NODE, K_OBJ, 0, 2 * idz, NULL, 0, f_node, 2);
	hg_class(&g, K_REGISTRY, K_OBJ, 0, 2 * idz, NULL, 0, f_registry, 2);
	hg_class(&g, K_OBJARR, K_OBJ, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, K_MYREF, K_REF, 0, idz, NULL, 0, NULL, 0);
	hg_class(&g, K_VICTIM, K_OBJ, 0, 0, NULL, 0, NULL, 0);
	hg_seg(&g);

	/* segment 2: the bag, its array, the sessions */
	id(&d, O_A); u4(&d, nsessions);
	hg_inst(&g, O_B, K_BAG, &d);
	for (unsigned i = 0; i < nsessions; i++)
		elems[i] = O_S(i);
	hg_objarr(&g, O_A, K_OBJARR, nsessions, elems);
	for (unsigned i = 0; i < nsessions; i++) {
		id(&d, O_SD(i)); u1(&d, i % 2);
		hg_inst(&g, O_S(i), K_SESSION, &d);
		hg_bytes(&g, O_SD(i), 1000, "session");
	}
	hg_seg(&g);

	/* segment 3: the rest (AuditSession's own field first, then Session's) */
	id(&d, O_SA); id(&d, nsessions ? O_S(0) : 0);
	hg_inst(&g, O_R, K_REGISTRY, &d);
	u8(&d, 0x1234); id(&d, O_SA_DATA); u1(&d, 1);
	hg_inst(&g, O_SA, K_AUDIT, &d);
	hg_bytes(&g, O_SA_DATA, 1000, NULL);
	for (unsigned i = 0; i < WORLD_CHAIN; i++) {
		id(&d, i + 1 < WORLD_CHAIN ? O_N(i + 1) : 0xdead8); id(&d, O_NP(i));
		hg_inst(&g, O_N(i), K_NODE, &d);
		hg_bytes(&g, O_NP(i), 100, NULL);
	}
	id(&d, O_TNAME);
	hg_inst(&g, O_T, K_THREAD, &d);
	id(&d, O_TNAME_B); u1(&d, 0);
	hg_inst(&g, O_TNAME, K_STR, &d);
	hg_bytes(&g, O_TNAME_B, 11, "main-worker");
	id(&d, O_T2NAME);
	hg_inst(&g, O_T2, K_THREAD, &d);
	synth_chars(&g.h, O_T2NAME, "oom-thrower");
	hg_bytes(&g, O_L, 5000, NULL);
	hg_inst(&g, O_O, K_OBJ, &d);
	id(&d, O_X);
	hg_inst(&g, O_W, K_WEAK, &d);
	hg_inst(&g, O_X, K_OBJ, &d);
	hg_inst(&g, O_U, K_OBJ, &d);
	id(&d, O_Z);
	hg_inst(&g, O_MR, K_MYREF, &d);
	hg_inst(&g, O_Z, K_VICTIM, &d);
	free(d.p);
	free(elems);
	return hg_end(&g);
}

/* A temporary directory for a test's files, and its files' paths. */
struct hg_tmp {
	char dir[256];
	char paths[16][300];
	unsigned n;
};

static inline int hg_tmp_init(struct hg_tmp *t)
{
	const char *base = getenv("TMPDIR");

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%.200s/ooms-unit-XXXXXX", base && *base ? base : "/tmp");
	if (mkdtemp(t->dir))
		return 0;
	snprintf(t->dir, sizeof(t->dir), "/tmp/ooms-unit-XXXXXX"); /* TMPDIR unusable */
	if (mkdtemp(t->dir))
		return 0;
	printf("Bail out! no temporary directory\n");
	return -1;
}

/* A path in the directory (removed by hg_tmp_done). */
static inline const char *hg_tmp_file(struct hg_tmp *t, const char *name)
{
	if (t->n == sizeof(t->paths) / sizeof(t->paths[0]))
		abort();
	char path[sizeof(t->paths[0])];

	snprintf(path, sizeof(path), "%.200s/%.90s", t->dir, name);
	memcpy(t->paths[t->n], path, sizeof(path));
	return t->paths[t->n++];
}

/* Writes b to a new file of the directory; its path. */
static inline const char *hg_tmp_dump(struct hg_tmp *t, const char *name, const struct buf *b)
{
	const char *p = hg_tmp_file(t, name);

	if (hg_write(p, b->p, b->len))
		abort();
	return p;
}

static inline void hg_tmp_done(struct hg_tmp *t)
{
	for (unsigned i = 0; i < t->n; i++)
		unlink(t->paths[i]);
	rmdir(t->dir);
}

#endif
