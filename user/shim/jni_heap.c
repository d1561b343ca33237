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
