/* Java stacks at native events, for HotSpot (hs_jstack.h). */
#define _GNU_SOURCE
#include "shim/hs_jstack.h"
#include "shim/shim.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

#include "shim/elfsym.h"
#include "shim/hs_tstart.h"
#include "shim/hs_fdopen.h"
#include "shim/libc/shim_libc.h"

#define JS_SIGNAL SIGPROF
#define JS_FRAMES 64
#define JS_SLOTS 1024
#define JS_CACHE 8192 /* methods named, open addressing */

/* AsyncGetCallTrace's interface, as HotSpot exports it (no header ships it) */
typedef struct {
	jint lineno;          /* bytecode index for a Java frame; -3 for a native method */
	jmethodID method_id;
} asgct_frame;
typedef struct {
	JNIEnv *env_id;
	jint num_frames;      /* < 0: why there are none */
	asgct_frame *frames;
} asgct_trace;
typedef void (*asgct_fn)(asgct_trace *, jint, void *);

struct js_slot {
	volatile int state;   /* 0 free, 1 being written, 2 full */
	pid_t tid;
	uint64_t sp, pc;
	int n;                /* frames, or < 0: AsyncGetCallTrace's reason, -100: not a Java thread */
	asgct_frame frames[JS_FRAMES];
};

struct js_method {
	jmethodID id;         /* NULL: free */
	char *text;           /* "pkg.Class.method" */
	char *file;           /* "File.java", NULL when unknown */
	jint nlines;          /* -1: native */
	jvmtiLineNumberEntry *lines;
};

static struct {
	JavaVM *vm;
	jvmtiEnv *jvmti;
	asgct_fn asgct;
	int conn;             /* where the lines go (-1: none) */
	int drainer;          /* the draining thread runs */
	volatile int handover; /* the thread starts are due on the new connection */
	jclass bits;          /* java.nio.Bits once seen loaded (a global ref) */
	double next_bits_scan;
	unsigned head, tail;
	uint64_t lost;        /* reports dropped: the ring was full */
	struct js_slot slots[JS_SLOTS];
	struct js_method cache[JS_CACHE];
} JS; /* zero: in .bss, not 1.4 MB of .data in every app (conn set at init) */

/* ---- in the signal handler: async-signal-safe only ---- */

static void on_signal(int sig, void *info, void *ucv)
{
	ucontext_t *uc = ucv;
	unsigned i = __atomic_fetch_add(&JS.head, 1, __ATOMIC_RELAXED) % JS_SLOTS;
	struct js_slot *s = &JS.slots[i];
	int expect = 0;
	JNIEnv *env = NULL;

	(void)sig;
	(void)info;
	if (!__atomic_compare_exchange_n(&s->state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&JS.lost, 1, __ATOMIC_RELAXED);
		return;
	}
	s->tid = gettid();
#if defined(__x86_64__)
	s->sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	s->pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	s->sp = uc->uc_mcontext.sp;
	s->pc = uc->uc_mcontext.pc;
#endif
	s->n = -100;
	if (JS.asgct && (*JS.vm)->GetEnv(JS.vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK && env) {
		asgct_trace t = {env, 0, s->frames};

		JS.asgct(&t, JS_FRAMES, uc);
		s->n = t.num_frames;
	}
	__atomic_store_n(&s->state, 2, __ATOMIC_RELEASE);
}

/* ---- in the draining thread (a Java thread: JVMTI may be called) ---- */

static char *class_dotted(jvmtiEnv *jvmti, jclass k)
{
	char *sig = NULL, *out;
	size_t n;

	if ((*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
		return strdup("?");
	n = strlen(sig);
	out = sig[0] == 'L' && n > 2 ? strndup(sig + 1, n - 2) : strdup(sig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	for (char *p = out; p && *p; p++)
		if (*p == '/')
			*p = '.';
	return out;
}

static struct js_method *method_of(JNIEnv *jni, jmethodID m)
{
	jvmtiEnv *jvmti = JS.jvmti;
	size_t h = ((uintptr_t)m >> 3) % JS_CACHE;
	struct js_method *x = NULL;
	char *name = NULL, *file = NULL, *cls = NULL, buf[600];
	jclass k = NULL;
	jboolean native = 0;

	for (size_t i = 0; i < JS_CACHE; i++) {
		x = &JS.cache[(h + i) % JS_CACHE];
		if (x->id == m)
			return x;
		if (!x->id)
			break;
	}
	if (!x || x->id) /* full: named each time, not kept */
		return NULL;
	(*jvmti)->GetMethodName(jvmti, m, &name, NULL, NULL);
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &k) == JVMTI_ERROR_NONE && k) {
		cls = class_dotted(jvmti, k);
		(*jvmti)->GetSourceFileName(jvmti, k, &file);
		(*jni)->DeleteLocalRef(jni, k);
	}
	snprintf(buf, sizeof(buf), "%s.%s", cls ? cls : "?", name ? name : "?");
	free(cls);
	x->text = strdup(buf);
	x->file = file ? strdup(file) : NULL;
	(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)file);
	if ((*jvmti)->IsMethodNative(jvmti, m, &native) == JVMTI_ERROR_NONE && native)
		x->nlines = -1;
	else if ((*jvmti)->GetLineNumberTable(jvmti, m, &x->nlines, &x->lines) != JVMTI_ERROR_NONE)
		x->nlines = 0;
	x->id = m;
	return x;
}

static int line_of(const struct js_method *x, jint bci)
{
	int line = -1;
	jlocation best = -1;

	for (jint i = 0; i < x->nlines; i++)
		if (x->lines[i].start_location <= bci && x->lines[i].start_location > best) {
			best = x->lines[i].start_location;
			line = x->lines[i].line_number;
		}
	return line;
}

/* Frame i (method m at bytecode index bci) appended at line + o, as Java
 * prints a stack trace's frames, after a ';' when not the first: the new o. */
static size_t append_frame(JNIEnv *jni, char *line, size_t size, size_t o, int i, jmethodID m, jint bci)
{
	const struct js_method *x = m ? method_of(jni, m) : NULL;
	int l = x && x->nlines >= 0 ? line_of(x, bci) : -1;

	if (!x)
		o += (size_t)snprintf(line + o, size - o, "%s?", i ? ";" : "");
	else if (x->nlines < 0)
		o += (size_t)snprintf(line + o, size - o, "%s%s(Native Method)", i ? ";" : "", x->text);
	else if (x->file && l > 0)
		o += (size_t)snprintf(line + o, size - o, "%s%s(%s:%d)", i ? ";" : "", x->text, x->file, l);
	else
		o += (size_t)snprintf(line + o, size - o, "%s%s(%s)", i ? ";" : "", x->text, x->file ? x->file : "Unknown Source");
	return o < size ? o : size - 1;
}

static void send_line(const char *line)
{
	if (JS.conn >= 0 && send(JS.conn, line, strlen(line), MSG_NOSIGNAL) < 0) {
		close(JS.conn); /* oomscope has gone: the reports have no one to go to */
		JS.conn = -1;
		hs_fdopen_connected(0); /* the next collector learns of the fds opened meanwhile */
	}
}

/* One line for slot s (its frames named), sent on the connection. */
static void report(JNIEnv *jni, const struct js_slot *s)
{
	static char line[16384];
	size_t o;
	/* AsyncGetCallTrace's reasons, by -num_frames */
	static const char *const why[] = {"no-java-frame", "no-class-load", "gc-active", "unknown-not-java",
					  "not-walkable-not-java", "unknown-java", "not-walkable-java", "unknown-state",
					  "thread-exit", "deopt", "safepoint"};

	o = (size_t)snprintf(line, sizeof(line), SHIM_JS " tid=%d sp=%llx pc=%llx ", (int)s->tid, (unsigned long long)s->sp,
			     (unsigned long long)s->pc);
	if (s->n <= 0) {
		snprintf(line + o, sizeof(line) - o, "none=%s\n",
			 s->n == -100 ? "not-a-java-thread" : -s->n < 11 ? why[-s->n] : "other");
	} else {
		/* the frames end the line: ';' and the newline are their only separators */
		o += (size_t)snprintf(line + o, sizeof(line) - o, "frames=");
		for (int i = 0; i < s->n && o + 700 < sizeof(line); i++)
			o = append_frame(jni, line, sizeof(line), o, i, s->frames[i].method_id, s->frames[i].lineno);
		snprintf(line + o, sizeof(line) - o, "\n");
	}
	send_line(line);
}

/* The threads started and the fds opened from Java before this connection,
 * each with its maker's frames (hs_tstart.h, hs_fdopen.h), then a line
 * saying how many:
 *   jt tid=<tid> creator=<tid> frames=<Class.method(File.java:N)>;...
 *   jf fd=<fd> tid=<tid> ns=<CLOCK_MONOTONIC> frames=...
 *   jt end count=<n> dropped=<n> fds=<n> fds_dropped=<n> */
static void send_thread_starts(JNIEnv *jni)
{
	static char line[16384];
	static struct hs_tstart_rec r;
	static struct hs_fdopen_rec f;
	unsigned cursor = 0, count = 0, fds = 0;

	while (JS.conn >= 0 && hs_tstart_next(&cursor, &r)) {
		size_t o = (size_t)snprintf(line, sizeof(line), SHIM_JT " tid=%d creator=%d frames=", (int)r.tid, (int)r.creator);

		for (int i = 0; i < r.n && o + 700 < sizeof(line); i++)
			o = append_frame(jni, line, sizeof(line), o, i, r.frames[i].method, (jint)r.frames[i].location);
		snprintf(line + o, sizeof(line) - o, "\n");
		if (r.n > 0) {
			send_line(line);
			count++;
		}
	}
	for (cursor = 0; JS.conn >= 0 && hs_fdopen_next(&cursor, &f);) {
		size_t o = (size_t)snprintf(line, sizeof(line), SHIM_JF " fd=%d tid=%d ns=%llu frames=", f.fd, (int)f.tid,
					    (unsigned long long)f.ns);

		for (int i = 0; i < f.n && o + 700 < sizeof(line); i++)
			o = append_frame(jni, line, sizeof(line), o, i, f.frames[i].method, (jint)f.frames[i].location);
		snprintf(line + o, sizeof(line) - o, "\n");
		send_line(line);
		fds++;
	}
	snprintf(line, sizeof(line), SHIM_JT " end count=%u dropped=%lu fds=%u fds_dropped=%lu\n", count,
		 hs_tstart_dropped(), fds, hs_fdopen_dropped());
	send_line(line);
}

/* java.nio.Bits, if the app has loaded it: looked for among the loaded
 * classes (never loaded or initialized by the shim: that would run Java
 * code, in what may be a full heap), every 10 s until seen. */
static void find_bits(jvmtiEnv *jvmti, JNIEnv *jni)
{
	jint n = 0;
	jclass *ks = NULL;

	if (JS.bits || shim_now_ms() < JS.next_bits_scan)
		return;
	JS.next_bits_scan = shim_now_ms() + 10000;
	if ((*jvmti)->GetLoadedClasses(jvmti, &n, &ks) != JVMTI_ERROR_NONE)
		return;
	for (jint i = 0; i < n; i++) {
		char *sig = NULL;

		if (!JS.bits && (*jvmti)->GetClassSignature(jvmti, ks[i], &sig, NULL) == JVMTI_ERROR_NONE && sig &&
		    !strcmp(sig, "Ljava/nio/Bits;"))
			JS.bits = (*jni)->NewGlobalRef(jni, ks[i]);
		if (sig)
			(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
		(*jni)->DeleteLocalRef(jni, ks[i]);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)ks);
}

/* The pools' line, once a second, on the connection: direct buffer
 * memory, 0 used (and its limit unknown) while Bits is not initialized:
 * nothing was reserved through it yet. */
static void send_pools(jvmtiEnv *jvmti, JNIEnv *jni)
{
	char line[160];
	int64_t used = 0, max = -1;
	jint st = 0;

	find_bits(jvmti, jni);
	if (JS.bits && (*jvmti)->GetClassStatus(jvmti, JS.bits, &st) == JVMTI_ERROR_NONE &&
	    (st & JVMTI_CLASS_STATUS_INITIALIZED) && shim_jni_direct(jni, JS.bits, &used, &max) != 0)
		return;
	snprintf(line, sizeof(line), SHIM_POOLS " direct_used=%lld direct_max=%lld\n", (long long)used, (long long)max);
	if (JS.conn >= 0 && send(JS.conn, line, strlen(line), MSG_NOSIGNAL) < 0) {
		close(JS.conn);
		JS.conn = -1;
	}
}

static void JNICALL drain_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
	double next_pools = 0;

	(void)arg;
	for (;;) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		int any = 0;

		for (unsigned k = 0; k < JS_SLOTS; k++) {
			struct js_slot *s = &JS.slots[(JS.tail + k) % JS_SLOTS];

			if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != 2)
				continue;
			if (JS.conn >= 0)
				report(jni, s);
			__atomic_store_n(&s->state, 0, __ATOMIC_RELEASE);
			any = 1;
		}
		if (__atomic_exchange_n(&JS.handover, 0, __ATOMIC_ACQ_REL) && JS.conn >= 0)
			send_thread_starts(jni);
		if (JS.conn >= 0 && shim_now_ms() >= next_pools) {
			send_pools(jvmti, jni);
			next_pools = shim_now_ms() + 1000;
		}
		if (!any)
			nanosleep(&ts, NULL);
	}
}

/* jmethodIDs for every method of k: AsyncGetCallTrace names no other */
static void methods_of(jvmtiEnv *jvmti, jclass k)
{
	jint n = 0;
	jmethodID *ms = NULL;

	if ((*jvmti)->GetClassMethods(jvmti, k, &n, &ms) == JVMTI_ERROR_NONE)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
}

void JNICALL hs_jstack_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
	(void)jvmti;
	(void)jni;
	(void)thread;
	(void)klass;
}

void JNICALL hs_jstack_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
	(void)jni;
	(void)thread;
	methods_of(jvmti, klass);
}

/* The thread that names the frames and sends the lines, once. */
static int start_drainer(jvmtiEnv *jvmti, JNIEnv *jni)
{
	jclass tc;
	jmethodID init;
	jobject t;

	if (JS.drainer)
		return 0;
	tc = (*jni)->FindClass(jni, "java/lang/Thread");
	init = tc ? (*jni)->GetMethodID(jni, tc, "<init>", "(Ljava/lang/String;)V") : NULL;
	t = init ? (*jni)->NewObject(jni, tc, init, (*jni)->NewStringUTF(jni, "oomscope-jstack")) : NULL;
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (!t || (*jvmti)->RunAgentThread(jvmti, t, drain_main, NULL, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE)
		return -1;
	JS.drainer = 1;
	return 0;
}

int hs_jstack_arm(JavaVM *vm, jvmtiEnv *jvmti, JNIEnv *jni, int conn, int no_stacks, char *why, size_t why_len)
{
	jint n = 0;
	jclass *ks = NULL;
	int e;

	if (!JS.vm)
		JS.conn = -1; /* the first arm: no connection yet */
	JS.vm = vm;
	JS.jvmti = jvmti;
	if (!no_stacks && !JS.asgct) {
		struct elfsym_lib lib;

		if (elfsym_open_loaded(&lib, "libjvm.so") == 0) {
			JS.asgct = (asgct_fn)elfsym_find(&lib, "AsyncGetCallTrace", NULL);
			elfsym_close(&lib);
		}
		if (!JS.asgct) {
			snprintf(why, why_len, "libjvm.so has no AsyncGetCallTrace");
			return -1;
		}
		/* every method named from now on: the loaded classes' now, the next ones' as they come;
		 * and AsyncGetCallTrace walks nothing unless class load events are on */
		(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
		(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
		if ((*jvmti)->GetLoadedClasses(jvmti, &n, &ks) == JVMTI_ERROR_NONE) {
			for (jint i = 0; i < n; i++) {
				methods_of(jvmti, ks[i]);
				(*jni)->DeleteLocalRef(jni, ks[i]);
			}
			(*jvmti)->Deallocate(jvmti, (unsigned char *)ks);
		}
	}
	if (!no_stacks && (e = shim_signal_handler(JS_SIGNAL, on_signal))) {
		snprintf(why, why_len, "%s", e == -EBUSY ? "SIGPROF has another handler in this process (a profiler?)"
							  : "cannot set the SIGPROF handler");
		return -1;
	}
	if (JS.conn >= 0)
		close(JS.conn);
	JS.conn = conn;
	if (!no_stacks && hs_tstart_active())
		__atomic_store_n(&JS.handover, 1, __ATOMIC_RELEASE);
	/* from now on each open's Java stack comes by the signal: the wrappers keep
	 * none (those kept so far are handed over first) */
	if (!no_stacks)
		hs_fdopen_connected(1);
	if (start_drainer(jvmti, jni)) {
		snprintf(why, why_len, "cannot start the thread that names the frames");
		JS.conn = -1;
		return -1;
	}
	return no_stacks ? 0 : JS_SIGNAL;
}
