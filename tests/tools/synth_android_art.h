/* A synthetic ART (Android 5+) dump for the analyzer's tests, with what no
 * public ART dump could be found to show:
 *   - a GC root of every kind ART writes (and an UNREACHABLE record, which is
 *     not a root);
 *   - NativeAllocationRegistry: two Bitmaps whose pixels a sun.misc.Cleaner
 *     frees through the registry's CleanerThunk (8,294,400 and 4,096 bytes);
 *   - Matrix's ResourceCanary: a DestroyedActivityInfo whose mActivityRef
 *     still reaches its destroyed MainActivity (held by App.sHolder), and one
 *     whose Activity is only weakly reachable (no leak).
 *   com.example.App.sHolder -> MainActivity@3001 (mDestroyed) -> mBitmap -> Bitmap@3031 (1080 x 1920)
 *   com.example.App.sInfos -> Object[] -> DestroyedActivityInfo@3010 -> mActivityRef -> WeakReference -> @3001
 *                                      -> DestroyedActivityInfo@3012 -> mActivityRef -> WeakReference -> @3002
 *   sun.misc.Cleaner.first -> Cleaner@3032 (referent Bitmap@3031, thunk -> CleanerThunk -> Registry, size 8294400)
 *   JNI global -> Bitmap@3034, freed by Cleaner@3035 (Registry size 4096) */
#ifndef OOMSCOPE_TESTS_SYNTH_ANDROID_ART_H
#define OOMSCOPE_TESTS_SYNTH_ANDROID_ART_H

#include "synth_android_app.h"

static inline void synth_chars(struct buf *h, uint64_t oid, const char *s)
{
	size_t n = strlen(s);

	u1(h, HPROF_PRIM_ARRAY_DUMP); id(h, oid); u4(h, 0); u4(h, (uint32_t)n); u1(h, HPROF_T_CHAR);
	for (size_t i = 0; i < n; i++)
		u2(h, (unsigned char)s[i]);
}

static inline struct buf make_android_art(unsigned id_size)
{
	enum { OBJ = 0x2000, STR, REF, WEAK, PHANTOM, CLEANER, REG, THUNK, BMP, ACT, MAIN, DAI, APP, ARR };
	enum { S_VALUE = 0x500, S_COUNT, S_REFERENT, S_THUNK, S_SIZE, S_THIS0, S_W, S_H, S_DESTROYED, S_FINISHED,
	       S_BITMAP, S_KEY, S_NAME, S_REF, S_HOLDER, S_INFOS, S_FIRST };
	struct buf b = {0}, h = {0}, d = {0};
	const char *fmt = "JAVA PROFILE 1.0.3";

	ID = id_size;
	put(&b, fmt, strlen(fmt) + 1);
	u4(&b, id_size);
	u8(&b, 1700000000000ull);
	string_rec(&b, S_VALUE, "value");           string_rec(&b, S_COUNT, "count");
	string_rec(&b, S_REFERENT, "referent");     string_rec(&b, S_THUNK, "thunk");
	string_rec(&b, S_SIZE, "size");             string_rec(&b, S_THIS0, "this$0");
	string_rec(&b, S_W, "mWidth");              string_rec(&b, S_H, "mHeight");
	string_rec(&b, S_DESTROYED, "mDestroyed");  string_rec(&b, S_FINISHED, "mFinished");
	string_rec(&b, S_BITMAP, "mBitmap");        string_rec(&b, S_KEY, "mKey");
	string_rec(&b, S_NAME, "mActivityName");    string_rec(&b, S_REF, "mActivityRef");
	string_rec(&b, S_HOLDER, "sHolder");        string_rec(&b, S_INFOS, "sInfos");
	string_rec(&b, S_FIRST, "first");
	synth_load(&b, 1, OBJ, 0x600, "java.lang.Object");
	synth_load(&b, 2, STR, 0x601, "java.lang.String");
	synth_load(&b, 3, REF, 0x602, "java.lang.ref.Reference");
	synth_load(&b, 4, WEAK, 0x603, "java.lang.ref.WeakReference");
	synth_load(&b, 5, PHANTOM, 0x604, "java.lang.ref.PhantomReference");
	synth_load(&b, 6, CLEANER, 0x605, "sun.misc.Cleaner");
	synth_load(&b, 7, REG, 0x606, "libcore.util.NativeAllocationRegistry");
	synth_load(&b, 8, THUNK, 0x607, "libcore.util.NativeAllocationRegistry$CleanerThunk");
	synth_load(&b, 9, BMP, 0x608, "android.graphics.Bitmap");
	synth_load(&b, 10, ACT, 0x609, "android.app.Activity");
	synth_load(&b, 11, MAIN, 0x60a, "com.example.MainActivity");
	synth_load(&b, 12, DAI, 0x60b, "com.tencent.matrix.resource.analyzer.model.DestroyedActivityInfo");
	synth_load(&b, 13, APP, 0x60c, "com.example.App");
	synth_load(&b, 14, ARR, 0x60d, "java.lang.Object[]");

	u1(&h, HPROF_HEAP_DUMP_INFO); u4(&h, HPROF_HEAP_APP); id(&h, 0x600);
	/* a root of every kind ART writes, each on its own java.lang.Object (0x3050..) */
	u1(&h, HPROF_ROOT_UNKNOWN); id(&h, 0x3050);
	u1(&h, HPROF_ROOT_JNI_GLOBAL); id(&h, 0x3051); id(&h, 0x7001);
	u1(&h, HPROF_ROOT_JNI_LOCAL); id(&h, 0x3052); u4(&h, 1); u4(&h, 0);
	u1(&h, HPROF_ROOT_JAVA_FRAME); id(&h, 0x3053); u4(&h, 1); u4(&h, 0);
	u1(&h, HPROF_ROOT_NATIVE_STACK); id(&h, 0x3054); u4(&h, 1);
	u1(&h, HPROF_ROOT_THREAD_BLOCK); id(&h, 0x3055); u4(&h, 1);
	u1(&h, HPROF_ROOT_MONITOR_USED); id(&h, 0x3056);
	u1(&h, HPROF_ROOT_THREAD_OBJECT); id(&h, 0x3057); u4(&h, 1); u4(&h, 0);
	u1(&h, HPROF_ROOT_INTERNED_STRING); id(&h, 0x3022);
	u1(&h, HPROF_ROOT_FINALIZING); id(&h, 0x3058);
	u1(&h, HPROF_ROOT_DEBUGGER); id(&h, 0x3059);
	u1(&h, HPROF_ROOT_REFERENCE_CLEANUP); id(&h, 0x305a);
	u1(&h, HPROF_ROOT_VM_INTERNAL); id(&h, 0x305b);
	u1(&h, HPROF_ROOT_JNI_MONITOR); id(&h, 0x305c); u4(&h, 1); u4(&h, 0);
	u1(&h, HPROF_UNREACHABLE); id(&h, 0x305d); /* not a root: the object stays unreachable */
	u1(&h, HPROF_ROOT_STICKY_CLASS); id(&h, APP);
	u1(&h, HPROF_ROOT_STICKY_CLASS); id(&h, CLEANER);
	u1(&h, HPROF_ROOT_JNI_GLOBAL); id(&h, 0x3034); id(&h, 0x7002);
	{
		const struct synth_field str[] = {{S_VALUE, HPROF_T_OBJECT}, {S_COUNT, HPROF_T_INT}};
		const struct synth_field ref[] = {{S_REFERENT, HPROF_T_OBJECT}};
		const struct synth_field cleaner[] = {{S_THUNK, HPROF_T_OBJECT}};
		const struct synth_field cleaner_st[] = {{S_FIRST, HPROF_T_OBJECT}};
		const uint64_t cleaner_vals[] = {0x3032};
		const struct synth_field reg[] = {{S_SIZE, HPROF_T_LONG}};
		const struct synth_field thunk[] = {{S_THIS0, HPROF_T_OBJECT}};
		const struct synth_field bmp[] = {{S_W, HPROF_T_INT}, {S_H, HPROF_T_INT}};
		const struct synth_field act[] = {{S_DESTROYED, HPROF_T_BOOLEAN}, {S_FINISHED, HPROF_T_BOOLEAN}};
		const struct synth_field main_[] = {{S_BITMAP, HPROF_T_OBJECT}};
		const struct synth_field dai[] = {{S_KEY, HPROF_T_OBJECT}, {S_NAME, HPROF_T_OBJECT}, {S_REF, HPROF_T_OBJECT}};
		const struct synth_field app[] = {{S_HOLDER, HPROF_T_OBJECT}, {S_INFOS, HPROF_T_OBJECT}};
		const uint64_t app_vals[] = {0x3001, 0x3014};

		synth_class(&h, OBJ, 0, 8, NULL, NULL, 0, NULL, 0);
		synth_class(&h, STR, OBJ, 8 + ID + 4, NULL, NULL, 0, str, 2);
		synth_class(&h, REF, OBJ, 8 + ID, NULL, NULL, 0, ref, 1);
		synth_class(&h, WEAK, REF, 8 + ID, NULL, NULL, 0, NULL, 0);
		synth_class(&h, PHANTOM, REF, 8 + ID, NULL, NULL, 0, NULL, 0);
		synth_class(&h, CLEANER, PHANTOM, 8 + 2 * ID, cleaner_st, cleaner_vals, 1, cleaner, 1);
		synth_class(&h, REG, OBJ, 8 + 8, NULL, NULL, 0, reg, 1);
		synth_class(&h, THUNK, OBJ, 8 + ID, NULL, NULL, 0, thunk, 1);
		synth_class(&h, BMP, OBJ, 8 + 8, NULL, NULL, 0, bmp, 2);
		synth_class(&h, ACT, OBJ, 8 + 2, NULL, NULL, 0, act, 2);
		synth_class(&h, MAIN, ACT, 8 + 2 + ID, NULL, NULL, 0, main_, 1);
		synth_class(&h, DAI, OBJ, 8 + 3 * ID, NULL, NULL, 0, dai, 3);
		synth_class(&h, APP, OBJ, 8, app, app_vals, 2, NULL, 0);
		synth_class(&h, ARR, OBJ, 0, NULL, NULL, 0, NULL, 0);
	}
	/* the Activities: MainActivity's mBitmap, then Activity's mDestroyed, mFinished */
	id(&d, 0x3031); u1(&d, 1); u1(&d, 0);
	synth_instance(&h, 0x3001, MAIN, &d); d.len = 0;
	id(&d, 0); u1(&d, 1); u1(&d, 0);
	synth_instance(&h, 0x3002, MAIN, &d); d.len = 0;
	/* Matrix's records: mKey, mActivityName, mActivityRef; the WeakReferences */
	id(&d, 0x3020); id(&d, 0x3022); id(&d, 0x3011);
	synth_instance(&h, 0x3010, DAI, &d); d.len = 0;
	id(&d, 0x3001);
	synth_instance(&h, 0x3011, WEAK, &d); d.len = 0;
	id(&d, 0x3024); id(&d, 0x3022); id(&d, 0x3013);
	synth_instance(&h, 0x3012, DAI, &d); d.len = 0;
	id(&d, 0x3002);
	synth_instance(&h, 0x3013, WEAK, &d); d.len = 0;
	u1(&h, HPROF_OBJ_ARRAY_DUMP); id(&h, 0x3014); u4(&h, 0); u4(&h, 2); id(&h, ARR); id(&h, 0x3010); id(&h, 0x3012);
	/* the keys and the activity name, as Strings over char[] */
	id(&d, 0x3021); u4(&d, 45);
	synth_instance(&h, 0x3020, STR, &d); d.len = 0;
	synth_chars(&h, 0x3021, "MATRIX_REFKEY_com.example.MainActivity_5f2c01");
	id(&d, 0x3023); u4(&d, 24);
	synth_instance(&h, 0x3022, STR, &d); d.len = 0;
	synth_chars(&h, 0x3023, "com.example.MainActivity");
	id(&d, 0x3025); u4(&d, 45);
	synth_instance(&h, 0x3024, STR, &d); d.len = 0;
	synth_chars(&h, 0x3025, "MATRIX_REFKEY_com.example.MainActivity_9e7d02");
	/* the Bitmaps, their Cleaners (thunk, then Reference.referent), thunks and registries */
	u4(&d, 1080); u4(&d, 1920);
	synth_instance(&h, 0x3031, BMP, &d); d.len = 0;
	id(&d, 0x3033); id(&d, 0x3031);
	synth_instance(&h, 0x3032, CLEANER, &d); d.len = 0;
	id(&d, 0x3030);
	synth_instance(&h, 0x3033, THUNK, &d); d.len = 0;
	u8(&d, 1080ull * 1920 * 4);
	synth_instance(&h, 0x3030, REG, &d); d.len = 0;
	u4(&d, 32); u4(&d, 32);
	synth_instance(&h, 0x3034, BMP, &d); d.len = 0;
	id(&d, 0x3036); id(&d, 0x3034);
	synth_instance(&h, 0x3035, CLEANER, &d); d.len = 0;
	id(&d, 0x3037);
	synth_instance(&h, 0x3036, THUNK, &d); d.len = 0;
	u8(&d, 4096);
	synth_instance(&h, 0x3037, REG, &d); d.len = 0;
	for (uint64_t o = 0x3050; o <= 0x305d; o++)
		synth_instance(&h, o, OBJ, &d);
	u1(&b, HPROF_HEAP_DUMP_SEGMENT); u4(&b, 9); u4(&b, (uint32_t)h.len); put(&b, h.p, h.len);
	u1(&b, HPROF_HEAP_DUMP_END); u4(&b, 13); u4(&b, 0);
	free(h.p);
	free(d.p);
	return b;
}

#endif
