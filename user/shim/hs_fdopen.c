/* Who opened each fd from Java before the collector connected (hs_fdopen.h). */
#define _GNU_SOURCE
#include "shim/hs_fdopen.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shim/libc/shim_libc.h"

#define FD_SLOTS 4096
#define FD_PROBE 8
/* at most this many opens a second get their stack taken (a few us each):
 * a service's opens at its start all, an open-and-close loop's a sample, so
 * an app that keeps the shim in its options unwatched pays next to nothing */
#define FD_PER_SECOND 256

enum { FD_FREE = 0, FD_WRITING, FD_FULL };

struct fd_slot {
	volatile int state;
	volatile unsigned gen;
	struct hs_fdopen_rec rec;
};

typedef void(JNICALL *open_str_fn)(JNIEnv *, jobject, jstring);
typedef void(JNICALL *open_str_bool_fn)(JNIEnv *, jobject, jstring, jboolean);
typedef void(JNICALL *open_str_int_fn)(JNIEnv *, jobject, jstring, jint);
typedef jint(JNICALL *open_path_fn)(JNIEnv *, jclass, jlong, jint, jint);
typedef jint(JNICALL *socket4_fn)(JNIEnv *, jclass, jboolean, jboolean, jboolean, jboolean);
typedef jint(JNICALL *socket0_fn)(JNIEnv *, jclass);

static struct {
	jvmtiEnv *jvmti;
	volatile int connected;
	jfieldID fis_fd, fos_fd, raf_fd, fd_fd; /* FileInputStream.fd ... FileDescriptor.fd */
	open_str_fn fis_open;
	open_str_bool_fn fos_open;
	open_str_int_fn raf_open;
	open_path_fn unix_open;
	socket4_fn net_socket;
	socket0_fn uds_socket;
	unsigned long dropped;
	uint64_t second;           /* the current second's start (ns), and its opens kept */
	unsigned in_second;
	struct fd_slot slots[FD_SLOTS];
} FD; /* in .bss: touched only where used */

void hs_fdopen_connected(int yes)
{
	__atomic_store_n(&FD.connected, yes, __ATOMIC_RELEASE);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* fd was just opened by this thread: kept, in its slot (a stale record of
 * the same fd, else a free one, else the oldest of its probe window). */
static void note(int fd)
{
	struct fd_slot *s = NULL;
	uint64_t oldest = UINT64_MAX;
	int expect;
	uint64_t ns;
	unsigned c;

	if (fd < 0 || __atomic_load_n(&FD.connected, __ATOMIC_ACQUIRE) || !FD.jvmti)
		return;
	/* past the second's share, the clock (a system call in this libc-free
	 * shim) is read once in 1024 opens: an open loop pays one atomic add */
	c = __atomic_fetch_add(&FD.in_second, 1, __ATOMIC_RELAXED);
	if (c >= FD_PER_SECOND && (c & 1023))
		return;
	ns = now_ns();
	if (ns - __atomic_load_n(&FD.second, __ATOMIC_RELAXED) >= 1000000000ull) {
		__atomic_store_n(&FD.second, ns, __ATOMIC_RELAXED);
		__atomic_store_n(&FD.in_second, 1, __ATOMIC_RELAXED);
		c = 0;
	}
	if (c >= FD_PER_SECOND)
		return;
	for (unsigned k = 0; k < FD_PROBE; k++) {
		struct fd_slot *slot = &FD.slots[((unsigned)fd + k) % FD_SLOTS];
		int st = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);

		if (st == FD_FULL && slot->rec.fd == fd) {
			s = slot;
			break;
		}
		if (st == FD_FREE && oldest) {
			s = slot;
			oldest = 0;
		} else if (st == FD_FULL && slot->rec.ns < oldest) {
			s = slot;
			oldest = slot->rec.ns;
		}
	}
	expect = s ? __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) : FD_WRITING;
	if (!s || expect == FD_WRITING ||
	    !__atomic_compare_exchange_n(&s->state, &expect, FD_WRITING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&FD.dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
	s->rec.fd = fd;
	s->rec.tid = gettid();
	s->rec.ns = ns;
	if ((*FD.jvmti)->GetStackTrace(FD.jvmti, NULL, 0, HS_FDOPEN_FRAMES, s->rec.frames, &s->rec.n) != JVMTI_ERROR_NONE)
		s->rec.n = 0;
	__atomic_store_n(&s->state, s->rec.n > 0 ? FD_FULL : FD_FREE, __ATOMIC_RELEASE);
}

/* The fd a java.io stream holds: its FileDescriptor's fd. */
static int stream_fd(JNIEnv *jni, jobject self, jfieldID field)
{
	jobject fdo;
	int fd;

	if (!field || !FD.fd_fd || (*jni)->ExceptionCheck(jni))
		return -1;
	if (!(fdo = (*jni)->GetObjectField(jni, self, field)))
		return -1;
	fd = (*jni)->GetIntField(jni, fdo, FD.fd_fd);
	(*jni)->DeleteLocalRef(jni, fdo);
	return fd;
}

static void JNICALL fis_open(JNIEnv *jni, jobject self, jstring path)
{
	FD.fis_open(jni, self, path);
	note(stream_fd(jni, self, FD.fis_fd));
}

static void JNICALL fos_open(JNIEnv *jni, jobject self, jstring path, jboolean append)
{
	FD.fos_open(jni, self, path, append);
	note(stream_fd(jni, self, FD.fos_fd));
}

static void JNICALL raf_open(JNIEnv *jni, jobject self, jstring path, jint mode)
{
	FD.raf_open(jni, self, path, mode);
	note(stream_fd(jni, self, FD.raf_fd));
}

static jint JNICALL unix_open(JNIEnv *jni, jclass k, jlong path, jint flags, jint mode)
{
	jint fd = FD.unix_open(jni, k, path, flags, mode);

	if (!(*jni)->ExceptionCheck(jni))
		note(fd);
	return fd;
}

static jint JNICALL net_socket(JNIEnv *jni, jclass k, jboolean v6, jboolean stream, jboolean reuse, jboolean fast)
{
	jint fd = FD.net_socket(jni, k, v6, stream, reuse, fast);

	if (!(*jni)->ExceptionCheck(jni))
		note(fd);
	return fd;
}

static jint JNICALL uds_socket(JNIEnv *jni, jclass k)
{
	jint fd = FD.uds_socket(jni, k);

	if (!(*jni)->ExceptionCheck(jni))
		note(fd);
	return fd;
}

/* k's field name of type sig, with any exception cleared (NULL: none) */
static jfieldID field(JNIEnv *jni, jclass k, const char *name, const char *sig)
{
	jfieldID f = (*jni)->GetFieldID(jni, k, name, sig);

	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	return f;
}

void hs_fdopen_bind(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID method, void *address, void **new_address)
{
	char *name = NULL, *sig = NULL, *cls = NULL;
	jclass k = NULL;

	if (!jni || !new_address ||
	    (*jvmti)->GetMethodName(jvmti, method, &name, &sig, NULL) != JVMTI_ERROR_NONE || !name || !sig)
		goto out;
	if (strcmp(name, "open0") && strcmp(name, "socket0"))
		goto out;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &k) != JVMTI_ERROR_NONE || !k ||
	    (*jvmti)->GetClassSignature(jvmti, k, &cls, NULL) != JVMTI_ERROR_NONE || !cls)
		goto out;
	FD.jvmti = jvmti;
	if (!FD.fd_fd) {
		jclass fdc = (*jni)->FindClass(jni, "java/io/FileDescriptor");

		if ((*jni)->ExceptionCheck(jni))
			(*jni)->ExceptionClear(jni);
		if (fdc) {
			FD.fd_fd = field(jni, fdc, "fd", "I");
			(*jni)->DeleteLocalRef(jni, fdc);
		}
	}
	/* each wrapped once: a second bind of the same native (RegisterNatives again) keeps ours */
	if (!strcmp(cls, "Ljava/io/FileInputStream;") && !strcmp(sig, "(Ljava/lang/String;)V") && !FD.fis_open) {
		FD.fis_fd = field(jni, k, "fd", "Ljava/io/FileDescriptor;");
		FD.fis_open = (open_str_fn)address;
		*new_address = (void *)fis_open;
	} else if (!strcmp(cls, "Ljava/io/FileOutputStream;") && !strcmp(sig, "(Ljava/lang/String;Z)V") && !FD.fos_open) {
		FD.fos_fd = field(jni, k, "fd", "Ljava/io/FileDescriptor;");
		FD.fos_open = (open_str_bool_fn)address;
		*new_address = (void *)fos_open;
	} else if (!strcmp(cls, "Ljava/io/RandomAccessFile;") && !strcmp(sig, "(Ljava/lang/String;I)V") && !FD.raf_open) {
		FD.raf_fd = field(jni, k, "fd", "Ljava/io/FileDescriptor;");
		FD.raf_open = (open_str_int_fn)address;
		*new_address = (void *)raf_open;
	} else if (!strcmp(cls, "Lsun/nio/fs/UnixNativeDispatcher;") && !strcmp(sig, "(JII)I") && !FD.unix_open) {
		FD.unix_open = (open_path_fn)address;
		*new_address = (void *)unix_open;
	} else if (!strcmp(cls, "Lsun/nio/ch/Net;") && !strcmp(sig, "(ZZZZ)I") && !FD.net_socket) {
		FD.net_socket = (socket4_fn)address;
		*new_address = (void *)net_socket;
	} else if (!strcmp(cls, "Lsun/nio/ch/UnixDomainSockets;") && !strcmp(sig, "()I") && !FD.uds_socket) {
		FD.uds_socket = (socket0_fn)address;
		*new_address = (void *)uds_socket;
	}
out:
	if (k)
		(*jni)->DeleteLocalRef(jni, k);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)cls);
}

int hs_fdopen_next(unsigned *cursor, struct hs_fdopen_rec *out)
{
	for (; *cursor < FD_SLOTS; (*cursor)++) {
		struct fd_slot *s = &FD.slots[*cursor];
		unsigned gen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != FD_FULL)
			continue;
		memcpy(out, &s->rec, sizeof(*out));
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != FD_FULL || __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != gen)
			continue;
		(*cursor)++;
		return 1;
	}
	return 0;
}

unsigned long hs_fdopen_dropped(void)
{
	return __atomic_load_n(&FD.dropped, __ATOMIC_RELAXED);
}
