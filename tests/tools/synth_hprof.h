/* Synthetic hprof dumps with every record and sub-record kind, for the unit
 * tests and for tests/tools/synth_hprof (which writes them to files). */
#ifndef OOMSCOPE_TESTS_SYNTH_HPROF_H
#define OOMSCOPE_TESTS_SYNTH_HPROF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hprof/hprof.h"

/* ---- building dumps ---- */

struct buf { uint8_t *p; size_t len, cap; };

static inline void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}
static inline void u1(struct buf *b, unsigned v) { uint8_t x = v; put(b, &x, 1); }
static inline void u2(struct buf *b, unsigned v) { u1(b, v >> 8); u1(b, v); }
static inline void u4(struct buf *b, uint32_t v) { u2(b, v >> 16); u2(b, v & 0xffff); }
static inline void u8(struct buf *b, uint64_t v) { u4(b, v >> 32); u4(b, (uint32_t)v); }
static unsigned ID;
static inline void id(struct buf *b, uint64_t v) { if (ID == 4) u4(b, (uint32_t)v); else u8(b, v); }

static inline void record(struct buf *b, unsigned tag, const struct buf *body)
{
	u1(b, tag);
	u4(b, 7);
	u4(b, (uint32_t)body->len);
	put(b, body->p, body->len);
}

static inline void string_rec(struct buf *b, uint64_t sid, const char *s)
{
	struct buf r = {0};

	id(&r, sid);
	put(&r, s, strlen(s));
	record(b, HPROF_STRING, &r);
	free(r.p);
}

/* A dump with every record kind and every sub-record kind. android: 1.0.3
 * with heaps (app, zygote, image) and the Android sub-records. */
static inline struct buf make_dump(unsigned id_size, int android)
{
	struct buf b = {0}, r = {0}, h = {0};
	const char *fmt = android ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2";

	ID = id_size;
	put(&b, fmt, strlen(fmt) + 1);
	u4(&b, id_size);
	u8(&b, 1700000000000ull);
	string_rec(&b, 0x100, "java.lang.Object");
	string_rec(&b, 0x101, "com.example.Leak");
	string_rec(&b, 0x102, "next");
	string_rec(&b, 0x103, "count");
	string_rec(&b, 0x104, "java.lang.String");
	string_rec(&b, 0x105, "value");
	/* LOAD_CLASS */
	u4(&r, 1); id(&r, 0x1000); u4(&r, 0); id(&r, 0x101);
	record(&b, HPROF_LOAD_CLASS, &r); r.len = 0;
	u4(&r, 2); id(&r, 0x1002); u4(&r, 0); id(&r, 0x104);
	record(&b, HPROF_LOAD_CLASS, &r); r.len = 0;
	/* the primitive array classes, named as each runtime names them */
	for (unsigned t = HPROF_T_BOOLEAN; t <= HPROF_T_LONG; t++) {
		static const char *const art[] = {"boolean[]", "char[]", "float[]", "double[]", "byte[]", "short[]", "int[]", "long[]"};
		static const char *const jvm[] = {"[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J"};

		string_rec(&b, 0x110 + t, android ? art[t - 4] : jvm[t - 4]);
		u4(&r, 10 + t); id(&r, 0x1100 + t); u4(&r, 0); id(&r, 0x110 + t);
		record(&b, HPROF_LOAD_CLASS, &r); r.len = 0;
	}
	string_rec(&b, 0x106, android ? "java.lang.Object[]" : "[Ljava/lang/Object;");
	u4(&r, 3); id(&r, 0x1001); u4(&r, 0); id(&r, 0x106);
	record(&b, HPROF_LOAD_CLASS, &r); r.len = 0;
	/* STACK_FRAME, STACK_TRACE */
	id(&r, 0x200); id(&r, 0x102); id(&r, 0x103); id(&r, 0x101); u4(&r, 1); u4(&r, 42);
	record(&b, HPROF_STACK_FRAME, &r); r.len = 0;
	u4(&r, 1); u4(&r, 1); u4(&r, 1); id(&r, 0x200);
	record(&b, HPROF_STACK_TRACE, &r); r.len = 0;
	record(&b, HPROF_CONTROL_SETTINGS, &(struct buf){(uint8_t *)"\0\0\0\0\0\x10", 6, 6});

	/* heap dump segment 1: roots and classes */
	if (android) { u1(&h, HPROF_HEAP_DUMP_INFO); u4(&h, HPROF_HEAP_ZYGOTE); id(&h, 0x100); }
	u1(&h, HPROF_ROOT_UNKNOWN); id(&h, 0x5000);
	u1(&h, HPROF_ROOT_JNI_GLOBAL); id(&h, 0x5000); id(&h, 0x9);
	u1(&h, HPROF_ROOT_JNI_LOCAL); id(&h, 0x5000); u4(&h, 1); u4(&h, 0xffffffff);
	u1(&h, HPROF_ROOT_JAVA_FRAME); id(&h, 0x5000); u4(&h, 1); u4(&h, 0);
	u1(&h, HPROF_ROOT_NATIVE_STACK); id(&h, 0x5000); u4(&h, 1);
	u1(&h, HPROF_ROOT_STICKY_CLASS); id(&h, 0x1000);
	u1(&h, HPROF_ROOT_THREAD_BLOCK); id(&h, 0x5000); u4(&h, 1);
	u1(&h, HPROF_ROOT_MONITOR_USED); id(&h, 0x5000);
	u1(&h, HPROF_ROOT_THREAD_OBJECT); id(&h, 0x5000); u4(&h, 1); u4(&h, 1);
	if (android) {
		unsigned tags[] = {HPROF_ROOT_INTERNED_STRING, HPROF_ROOT_FINALIZING, HPROF_ROOT_DEBUGGER,
				   HPROF_ROOT_REFERENCE_CLEANUP, HPROF_ROOT_VM_INTERNAL, HPROF_UNREACHABLE};
		for (unsigned i = 0; i < 6; i++) { u1(&h, tags[i]); id(&h, 0x5000); }
		u1(&h, HPROF_ROOT_JNI_MONITOR); id(&h, 0x5000); u4(&h, 1); u4(&h, 3);
	}
	/* class com.example.Leak: 1 constant, 2 statics, fields next (object) and count (int) */
	u1(&h, HPROF_CLASS_DUMP); id(&h, 0x1000); u4(&h, 1); id(&h, 0); id(&h, 0); id(&h, 0); id(&h, 0);
	id(&h, 0); id(&h, 0); u4(&h, 16);
	u2(&h, 1); u2(&h, 3); u1(&h, HPROF_T_LONG); u8(&h, 77);
	u2(&h, 2); id(&h, 0x103); u1(&h, HPROF_T_INT); u4(&h, 5); id(&h, 0x102); u1(&h, HPROF_T_OBJECT); id(&h, 0x5000);
	u2(&h, 2); id(&h, 0x102); u1(&h, HPROF_T_OBJECT); id(&h, 0x103); u1(&h, HPROF_T_INT);
	/* class java.lang.String: field value */
	u1(&h, HPROF_CLASS_DUMP); id(&h, 0x1002); u4(&h, 1); id(&h, 0); id(&h, 0); id(&h, 0); id(&h, 0);
	id(&h, 0); id(&h, 0); u4(&h, 8);
	u2(&h, 0); u2(&h, 0); u2(&h, 1); id(&h, 0x105); u1(&h, HPROF_T_OBJECT);
	u1(&h, HPROF_CLASS_DUMP); id(&h, 0x1001); u4(&h, 1); id(&h, 0); id(&h, 0); id(&h, 0); id(&h, 0);
	id(&h, 0); id(&h, 0); u4(&h, 0); u2(&h, 0); u2(&h, 0); u2(&h, 0);
	for (unsigned t = HPROF_T_BOOLEAN; t <= HPROF_T_LONG; t++) {
		u1(&h, HPROF_CLASS_DUMP); id(&h, 0x1100 + t); u4(&h, 1); id(&h, 0); id(&h, 0); id(&h, 0); id(&h, 0);
		id(&h, 0); id(&h, 0); u4(&h, 0); u2(&h, 0); u2(&h, 0); u2(&h, 0);
	}
	u1(&b, HPROF_HEAP_DUMP_SEGMENT); u4(&b, 9); u4(&b, (uint32_t)h.len); put(&b, h.p, h.len); h.len = 0;

	/* segment 2: objects, in the app heap on Android */
	if (android) { u1(&h, HPROF_HEAP_DUMP_INFO); u4(&h, HPROF_HEAP_APP); id(&h, 0x101); }
	u1(&h, HPROF_INSTANCE_DUMP); id(&h, 0x5000); u4(&h, 1); id(&h, 0x1000); u4(&h, ID + 4);
	id(&h, 0x5001); u4(&h, 12345);
	u1(&h, HPROF_INSTANCE_DUMP); id(&h, 0x5001); u4(&h, 1); id(&h, 0x1000); u4(&h, ID + 4);
	id(&h, 0); u4(&h, 1);
	u1(&h, HPROF_INSTANCE_DUMP); id(&h, 0x5002); u4(&h, 1); id(&h, 0x1002); u4(&h, ID); id(&h, 0x6008);
	u1(&h, HPROF_OBJ_ARRAY_DUMP); id(&h, 0x5003); u4(&h, 1); u4(&h, 3); id(&h, 0x1001);
	id(&h, 0x5000); id(&h, 0); id(&h, 0x5002);
	for (unsigned t = HPROF_T_BOOLEAN; t <= HPROF_T_LONG; t++) {
		unsigned n = 5 + t, sz = hprof_type_size(t, ID);

		u1(&h, HPROF_PRIM_ARRAY_DUMP); id(&h, 0x6000 + t); u4(&h, 1); u4(&h, n); u1(&h, t);
		for (unsigned i = 0; i < n * sz; i++)
			u1(&h, (i * 7 + t) | 1);
	}
	if (android) { u1(&h, HPROF_PRIM_ARRAY_NODATA); id(&h, 0x6100); u4(&h, 1); u4(&h, 1000); u1(&h, HPROF_T_INT); }
	u1(&b, HPROF_HEAP_DUMP_SEGMENT); u4(&b, 11); u4(&b, (uint32_t)h.len); put(&b, h.p, h.len); h.len = 0;

	/* an image heap object, dropped by koom mode */
	if (android) {
		u1(&h, HPROF_HEAP_DUMP_INFO); u4(&h, HPROF_HEAP_IMAGE); id(&h, 0x101);
		u1(&h, HPROF_INSTANCE_DUMP); id(&h, 0x7000); u4(&h, 1); id(&h, 0x1000); u4(&h, ID + 4);
		id(&h, 0x5000); u4(&h, 9);
		u1(&b, HPROF_HEAP_DUMP_SEGMENT); u4(&b, 12); u4(&b, (uint32_t)h.len); put(&b, h.p, h.len);
	}
	u1(&b, HPROF_HEAP_DUMP_END); u4(&b, 13); u4(&b, 0);
	free(r.p);
	free(h.p);
	return b;
}

#endif
