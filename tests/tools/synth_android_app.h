/* A small synthetic Android (1.0.3) dump of an app with the leaks the
 * Android rules look for, for the analyzer's tests:
 *   com.example.App.sLeaked -> MainActivity (mDestroyed) -> mWindow -> Window (mDestroyed)
 *                                                        -> mBitmap -> Bitmap 1080x1920
 *   com.example.App.sFragments -> Object[] -> [0] Fragment (mFragmentManager null, mCalled)
 *                                          -> [1] Fragment (attached)
 * and, held by a JNI global, a live MainActivity with a small Bitmap. ART
 * writes real instance sizes in class dumps (java.lang.Object's is 8). */
#ifndef OOMSCOPE_TESTS_SYNTH_ANDROID_APP_H
#define OOMSCOPE_TESTS_SYNTH_ANDROID_APP_H

#include "synth_hprof.h"

struct synth_field { uint64_t name; unsigned type; };

/* A class dump with no constant pool; statics are object fields. */
static inline void synth_class(struct buf *h, uint64_t cid, uint64_t super, uint32_t size,
			       const struct synth_field *st, const uint64_t *st_vals, unsigned nst,
			       const struct synth_field *f, unsigned nf)
{
	u1(h, HPROF_CLASS_DUMP); id(h, cid); u4(h, 0); id(h, super); id(h, 0); id(h, 0); id(h, 0); id(h, 0); id(h, 0);
	u4(h, size);
	u2(h, 0);
	u2(h, nst);
	for (unsigned i = 0; i < nst; i++) { id(h, st[i].name); u1(h, HPROF_T_OBJECT); id(h, st_vals[i]); }
	u2(h, nf);
	for (unsigned i = 0; i < nf; i++) { id(h, f[i].name); u1(h, f[i].type); }
}

static inline void synth_load(struct buf *b, uint32_t serial, uint64_t cid, uint64_t sid, const char *name)
{
	struct buf r = {0};

	string_rec(b, sid, name);
	u4(&r, serial); id(&r, cid); u4(&r, 0); id(&r, sid);
	record(b, HPROF_LOAD_CLASS, &r);
	free(r.p);
}

static inline void synth_instance(struct buf *h, uint64_t oid, uint64_t cid, const struct buf *data)
{
	u1(h, HPROF_INSTANCE_DUMP); id(h, oid); u4(h, 0); id(h, cid); u4(h, (uint32_t)data->len);
	put(h, data->p, data->len);
}

/* image: the destroyed Window is in ART's image heap (boot image objects:
 * never an app's leak). */
static inline struct buf make_android_app(unsigned id_size, int image)
{
	enum { OBJ = 0x2000, ACT, MAIN, FRAG, BMP, APP, ARR, WIN, BYTES };
	enum { S_DESTROYED = 0x500, S_FINISHED, S_WINDOW, S_BITMAP, S_FM, S_CALLED, S_W, S_H, S_LEAKED, S_FRAGS, S_BUF };
	struct buf b = {0}, h = {0}, d = {0};
	const char *fmt = "JAVA PROFILE 1.0.3";

	ID = id_size;
	put(&b, fmt, strlen(fmt) + 1);
	u4(&b, id_size);
	u8(&b, 1700000000000ull);
	string_rec(&b, S_DESTROYED, "mDestroyed"); string_rec(&b, S_FINISHED, "mFinished");
	string_rec(&b, S_WINDOW, "mWindow");       string_rec(&b, S_BITMAP, "mBitmap");
	string_rec(&b, S_FM, "mFragmentManager");  string_rec(&b, S_CALLED, "mCalled");
	string_rec(&b, S_W, "mWidth");             string_rec(&b, S_H, "mHeight");
	string_rec(&b, S_LEAKED, "sLeaked");       string_rec(&b, S_FRAGS, "sFragments");
	string_rec(&b, S_BUF, "mBuffer");
	synth_load(&b, 1, OBJ, 0x600, "java.lang.Object");
	synth_load(&b, 2, ACT, 0x601, "android.app.Activity");
	synth_load(&b, 3, MAIN, 0x602, "com.example.MainActivity");
	synth_load(&b, 4, FRAG, 0x603, "androidx.fragment.app.Fragment");
	synth_load(&b, 5, BMP, 0x604, "android.graphics.Bitmap");
	synth_load(&b, 6, APP, 0x605, "com.example.App");
	synth_load(&b, 7, ARR, 0x606, "java.lang.Object[]");
	synth_load(&b, 8, WIN, 0x607, "android.view.Window");
	synth_load(&b, 9, BYTES, 0x608, "byte[]");

	u1(&h, HPROF_HEAP_DUMP_INFO); u4(&h, HPROF_HEAP_APP); id(&h, 0x600);
	u1(&h, HPROF_ROOT_STICKY_CLASS); id(&h, APP);
	u1(&h, HPROF_ROOT_JNI_GLOBAL); id(&h, 0x3002); id(&h, 0);
	{
		const struct synth_field act[] = {{S_DESTROYED, HPROF_T_BOOLEAN}, {S_FINISHED, HPROF_T_BOOLEAN},
						  {S_WINDOW, HPROF_T_OBJECT}};
		const struct synth_field main_[] = {{S_BITMAP, HPROF_T_OBJECT}};
		const struct synth_field frag[] = {{S_FM, HPROF_T_OBJECT}, {S_CALLED, HPROF_T_BOOLEAN}};
		const struct synth_field bmp[] = {{S_W, HPROF_T_INT}, {S_H, HPROF_T_INT}, {S_BUF, HPROF_T_OBJECT}};
		const struct synth_field win[] = {{S_DESTROYED, HPROF_T_BOOLEAN}};
		const struct synth_field app[] = {{S_LEAKED, HPROF_T_OBJECT}, {S_FRAGS, HPROF_T_OBJECT}};
		const uint64_t app_vals[] = {0x3001, 0x3008};

		synth_class(&h, OBJ, 0, 8, NULL, NULL, 0, NULL, 0);
		synth_class(&h, ACT, OBJ, 8 + 2 + ID, NULL, NULL, 0, act, 3);
		synth_class(&h, MAIN, ACT, 8 + 2 + 2 * ID, NULL, NULL, 0, main_, 1);
		synth_class(&h, FRAG, OBJ, 8 + 1 + ID, NULL, NULL, 0, frag, 2);
		synth_class(&h, BMP, OBJ, 8 + 8 + ID, NULL, NULL, 0, bmp, 3);
		synth_class(&h, APP, OBJ, 8, app, app_vals, 2, NULL, 0);
		synth_class(&h, ARR, OBJ, 0, NULL, NULL, 0, NULL, 0);
		synth_class(&h, WIN, OBJ, 8 + 1, NULL, NULL, 0, win, 1);
		synth_class(&h, BYTES, OBJ, 0, NULL, NULL, 0, NULL, 0);
	}
	/* MainActivity data: mBitmap, then Activity's mDestroyed, mFinished, mWindow */
	id(&d, 0x3004); u1(&d, 1); u1(&d, 0); id(&d, 0x3003);
	synth_instance(&h, 0x3001, MAIN, &d); d.len = 0;
	id(&d, 0x3005); u1(&d, 0); u1(&d, 0); id(&d, 0);
	synth_instance(&h, 0x3002, MAIN, &d); d.len = 0;
	u1(&d, 1);
	if (image) {
		u1(&h, HPROF_HEAP_DUMP_INFO); u4(&h, HPROF_HEAP_IMAGE); id(&h, 0x600);
	}
	synth_instance(&h, 0x3003, WIN, &d); d.len = 0;
	if (image) {
		u1(&h, HPROF_HEAP_DUMP_INFO); u4(&h, HPROF_HEAP_APP); id(&h, 0x600);
	}
	u4(&d, 1080); u4(&d, 1920); id(&d, 0x3009);
	synth_instance(&h, 0x3004, BMP, &d); d.len = 0;
	u4(&d, 100); u4(&d, 100); id(&d, 0);
	synth_instance(&h, 0x3005, BMP, &d); d.len = 0;
	id(&d, 0); u1(&d, 1);
	synth_instance(&h, 0x3006, FRAG, &d); d.len = 0;
	id(&d, 0x3002); u1(&d, 1);
	synth_instance(&h, 0x3007, FRAG, &d); d.len = 0;
	u1(&h, HPROF_OBJ_ARRAY_DUMP); id(&h, 0x3008); u4(&h, 0); u4(&h, 2); id(&h, ARR); id(&h, 0x3006); id(&h, 0x3007);
	/* the big Bitmap's pixels: 1080 x 1920 x 4 bytes, only as a header (stripped) */
	u1(&h, HPROF_PRIM_ARRAY_NODATA); id(&h, 0x3009); u4(&h, 0); u4(&h, 1080 * 1920 * 4); u1(&h, HPROF_T_BYTE);
	u1(&b, HPROF_HEAP_DUMP_SEGMENT); u4(&b, 9); u4(&b, (uint32_t)h.len); put(&b, h.p, h.len);
	u1(&b, HPROF_HEAP_DUMP_END); u4(&b, 13); u4(&b, 0);
	free(h.p);
	free(d.p);
	return b;
}

#endif
