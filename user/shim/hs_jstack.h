/* Java stacks at the moment of a native event (HotSpot): oomscope's kernel
 * side signals the thread that opened an fd, started a thread or mapped a
 * large range, as it returns to user space; this handler takes the
 * thread's Java frames with HotSpot's AsyncGetCallTrace (what
 * async-profiler uses), with the pc and sp it was stopped at (so oomscope
 * can match the report with its event), into a ring that a thread of the
 * runtime's drains: it names each frame (class, method, source file, line)
 * and sends one line per event on the connection that asked:
 *
 *   js tid=<tid> sp=<hex> pc=<hex> frames=<Class.method(File.java:N)>;...
 *   js tid=<tid> sp=<hex> pc=<hex> none=<why>        (no Java frames)
 *
 * On each new connection it first sends the threads started before it,
 * with the Java frames of their starters (the shim loaded at launch:
 * hs_tstart.h), and a line that ends them:
 *
 *   jt tid=<tid> creator=<tid> frames=<Class.method(File.java:N)>;...
 *   jt end count=<n> dropped=<n>
 *
 * The same thread sends the pools' figures once a second (the runtime's
 * other bounded memory, read through JNI):
 *
 *   pools direct_used=<bytes> direct_max=<bytes>
 */
#ifndef OOMSCOPE_SHIM_HS_JSTACK_H
#define OOMSCOPE_SHIM_HS_JSTACK_H

#include <jvmti.h>

/* Arms the handler for the connection conn (taken; a newer arm replaces
 * it): AsyncGetCallTrace found in libjvm.so, a jmethodID made for every
 * method of every class (it names only those), the handler on SIGPROF,
 * the draining thread started. no_stacks: the draining thread and its
 * pools' line only. The signal number (0 with no_stacks), or -1 with why. */
int hs_jstack_arm(JavaVM *vm, jvmtiEnv *jvmti, JNIEnv *jni, int conn, int no_stacks, char *why, size_t why_len);
/* JVMTI ClassLoad: nothing (AsyncGetCallTrace wants the event on). */
void JNICALL hs_jstack_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass);
/* JVMTI ClassPrepare: the new class's methods get their jmethodIDs. */
void JNICALL hs_jstack_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass);

#endif
