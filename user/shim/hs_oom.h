/* HotSpot's OutOfMemoryErrors in the shim (hs_oom.c). */
#ifndef OOMSCOPE_SHIM_HS_OOM_H
#define OOMSCOPE_SHIM_HS_OOM_H

#include <jvmti.h>

/* The JVMTI ResourceExhausted callback: tells the armed client, and dumps
 * the heap for a Java heap OutOfMemoryError. */
void JNICALL shim_hs_on_exhausted(jvmtiEnv *env, JNIEnv *jni, jint flags, const void *reserved, const char *what);

#endif
