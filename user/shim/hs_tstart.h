/* Who started each Java thread, from the JVM's start (HotSpot, the shim
 * loaded at launch): the Java frames of the thread that called
 * Thread.start, kept for every live thread it made, so that a collector
 * that connects later (oomscope's javastacks connection, hs_jstack.h) learns
 * the Java creation frames of the threads made before it could ask for them
 * (a pool started in main, as most services do).
 *
 * How: Thread.start0 is bound to libjvm's JVM_StartThread when Thread's
 * natives are registered, before any Java code runs; the shim's
 * NativeMethodBind callback binds it to a wrapper instead, which takes the
 * caller's stack (JVMTI GetStackTrace) and a weak reference to the Thread,
 * then calls JVM_StartThread. The new thread's ThreadStart event finds its
 * record by that reference and adds its tid; ThreadEnd frees it. A record
 * costs the starting thread one GetStackTrace: nothing per event otherwise.
 * Not on ART, and not when the shim is attached to a running JVM (the
 * natives are bound by then). */
#ifndef OOMSCOPE_SHIM_HS_TSTART_H
#define OOMSCOPE_SHIM_HS_TSTART_H

#include <jvmti.h>
#include <sys/types.h>

#define HS_TSTART_FRAMES 32

/* At Agent_OnLoad, before SetEventCallbacks: adds the capability
 * (NativeMethodBind events). 0, or -1 when the JVM refuses it. */
int hs_tstart_onload(jvmtiEnv *jvmti);
/* The callbacks to set (after a successful onload) and the events to
 * enable: NativeMethodBind now (it also binds hs_fdopen.h's wrappers),
 * ThreadStart and ThreadEnd at VMInit. */
void JNICALL hs_tstart_bind(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method, void *address,
			    void **new_address);
void JNICALL hs_tstart_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
void JNICALL hs_tstart_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
int hs_tstart_enable_bind(jvmtiEnv *jvmti);
void hs_tstart_vm_init(jvmtiEnv *jvmti);
/* Is Thread.start0 wrapped (the records are being kept)? */
int hs_tstart_active(void);

/* One live started thread: its tid, its starter's tid and Java frames. */
struct hs_tstart_rec {
	pid_t tid, creator;
	jint n;
	jvmtiFrameInfo frames[HS_TSTART_FRAMES];
};
/* The next live record at or after *cursor (a copy; *cursor moves past
 * it): 1, or 0 at the end. */
int hs_tstart_next(unsigned *cursor, struct hs_tstart_rec *out);
/* Threads started whose record found no room (every slot held by a live
 * thread). */
unsigned long hs_tstart_dropped(void);

#endif
