/* HotSpot's OutOfMemoryErrors in the shim (hs_oom.c). */
#ifndef OOMSCOPE_SHIM_HS_OOM_H
#define OOMSCOPE_SHIM_HS_OOM_H

#include <jvmti.h>

/* The JVMTI ResourceExhausted callback: tells the armed client, and dumps
 * the heap for a Java heap OutOfMemoryError. */
void JNICALL shim_hs_on_exhausted(jvmtiEnv *env, JNIEnv *jni, jint flags, const void *reserved, const char *what);

/* Every OutOfMemoryError built in Java code too (java.nio.Bits's direct
 * memory one): java.lang.OutOfMemoryError's constructors retransformed to
 * call a native hook with the new error before they return (classfile.h;
 * the hook class defined in the boot loader, read by java.base). Costs
 * nothing until an error is built: the VM's own (the heap, Metaspace) are
 * preallocated, built by no constructor, and come through
 * ResourceExhausted. 0, or -1 with why (the JVM lacks what it needs). */
int shim_hs_oomhook_install(jvmtiEnv *env, JNIEnv *jni, char *why, size_t why_len);
/* The ClassFileLoadHook callback (enabled only while it installs). */
void JNICALL shim_hs_oomhook_cflh(jvmtiEnv *env, JNIEnv *jni, jclass redefined, jobject loader, const char *name,
				  jobject domain, jint len, const unsigned char *data, jint *new_len,
				  unsigned char **new_data);

#endif
