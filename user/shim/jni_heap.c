/* Heap figures through JNI, the same on HotSpot and ART. */
#include "shim/shim.h"

#include <errno.h>
#include <jni.h>

int shim_jni_heap(void *vm, int64_t *used, int64_t *committed, int64_t *max)
{
	JavaVM *jvm = vm;
	JNIEnv *jni = NULL;
	jclass rc;
	jmethodID get, total, free_m, max_m;
	jobject rt;

	if (!jvm || ((*jvm)->GetEnv(jvm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK &&
		     (*jvm)->AttachCurrentThreadAsDaemon(jvm, (void **)&jni, NULL) != JNI_OK))
		return -ENOTCONN;
	rc = (*jni)->FindClass(jni, "java/lang/Runtime");
	if (!rc) {
		(*jni)->ExceptionClear(jni);
		return -ENOENT;
	}
	get = (*jni)->GetStaticMethodID(jni, rc, "getRuntime", "()Ljava/lang/Runtime;");
	total = (*jni)->GetMethodID(jni, rc, "totalMemory", "()J");
	free_m = (*jni)->GetMethodID(jni, rc, "freeMemory", "()J");
	max_m = (*jni)->GetMethodID(jni, rc, "maxMemory", "()J");
	rt = get ? (*jni)->CallStaticObjectMethod(jni, rc, get) : NULL;
	if (!rt || !total || !free_m || !max_m) {
		(*jni)->ExceptionClear(jni);
		(*jni)->DeleteLocalRef(jni, rc);
		return -ENOENT;
	}
	*committed = (*jni)->CallLongMethod(jni, rt, total);
	*used = *committed - (*jni)->CallLongMethod(jni, rt, free_m);
	*max = (*jni)->CallLongMethod(jni, rt, max_m);
	(*jni)->DeleteLocalRef(jni, rt);
	(*jni)->DeleteLocalRef(jni, rc);
	return 0;
}

/* A static long of class k, or the value of the AtomicLong it holds, read
 * without running Java code (JDK 11+: RESERVED_MEMORY is an AtomicLong,
 * MAX_MEMORY a long; JDK 8: reservedMemory, maxMemory, longs). 0 or -ENOENT. */
static int static_long(JNIEnv *jni, jclass k, const char *name, const char *name8, int64_t *out)
{
	const char *names[2] = {name, name8};

	for (int i = 0; i < 2; i++) {
		jfieldID f = (*jni)->GetStaticFieldID(jni, k, names[i], "J");
		jobject al;
		jclass ac;
		jfieldID v;

		if (f) {
			*out = (*jni)->GetStaticLongField(jni, k, f);
			return 0;
		}
		(*jni)->ExceptionClear(jni);
		f = (*jni)->GetStaticFieldID(jni, k, names[i], "Ljava/util/concurrent/atomic/AtomicLong;");
		if (!f) {
			(*jni)->ExceptionClear(jni);
			continue;
		}
		al = (*jni)->GetStaticObjectField(jni, k, f);
		ac = al ? (*jni)->GetObjectClass(jni, al) : NULL;
		v = ac ? (*jni)->GetFieldID(jni, ac, "value", "J") : NULL;
		if (v)
			*out = (*jni)->GetLongField(jni, al, v);
		(*jni)->ExceptionClear(jni);
		if (ac)
			(*jni)->DeleteLocalRef(jni, ac);
		if (al)
			(*jni)->DeleteLocalRef(jni, al);
		return v ? 0 : -ENOENT;
	}
	return -ENOENT;
}

int shim_jni_direct(void *jni_env, void *bits, int64_t *used, int64_t *max)
{
	JNIEnv *jni = jni_env;
	int e = static_long(jni, bits, "RESERVED_MEMORY", "reservedMemory", used);

	return e ? e : static_long(jni, bits, "MAX_MEMORY", "maxMemory", max);
}
