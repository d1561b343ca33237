/* Who opened each fd from Java before oomscope's collector connected
 * (HotSpot, the shim loaded at launch): the Java frames of the opener, for
 * the fds made before the collector could ask for them (a service's files
 * and sockets opened in main), handed over on its javastacks connection
 * (hs_jstack.h) and matched there with the kernel's open by fd, thread and
 * time.
 *
 * How: the natives that make fds in java.io and NIO (FileInputStream,
 * FileOutputStream and RandomAccessFile's open0, UnixNativeDispatcher.open0,
 * Net.socket0, UnixDomainSockets.socket0) are bound, at their first call, to
 * wrappers (NativeMethodBind): each calls the JDK's own, then, while no
 * collector is connected, keeps the fd, the thread, the time and the
 * caller's Java stack (JVMTI GetStackTrace), for at most 256 opens a second
 * (a sample: the rest pass through). Once one is connected its own
 * signal takes each open's Java stack, and the wrappers only call through. */
#ifndef OOMSCOPE_SHIM_HS_FDOPEN_H
#define OOMSCOPE_SHIM_HS_FDOPEN_H

#include <jvmti.h>
#include <stdint.h>
#include <sys/types.h>

#define HS_FDOPEN_FRAMES 32

/* Called from the NativeMethodBind callback (hs_tstart.c) in the live
 * phase: wraps method when it is one of the above (sets *new_address). */
void hs_fdopen_bind(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID method, void *address, void **new_address);
/* Is a collector connected (the wrappers then keep nothing)? Set by hs_jstack.c. */
void hs_fdopen_connected(int yes);

struct hs_fdopen_rec {
	int fd;
	pid_t tid;
	uint64_t ns; /* CLOCK_MONOTONIC, just after the open returned */
	jint n;
	jvmtiFrameInfo frames[HS_FDOPEN_FRAMES];
};
/* The next kept open at or after *cursor (a copy): 1, or 0 at the end. */
int hs_fdopen_next(unsigned *cursor, struct hs_fdopen_rec *out);
unsigned long hs_fdopen_dropped(void);

#endif
