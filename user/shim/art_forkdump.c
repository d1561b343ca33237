/* The ART fork-dump, as KOOM does it, per Android version (docs/rules.md;
 * the symbols were checked against Debian's android-libart, an Android 11
 * build). UNTESTED ON A DEVICE: this machine has no ART to run.
 *
 *   Android 5-10:  Dbg::SuspendVM, fork, Dbg::ResumeVM in the parent.
 *   Android 11-14: ScopedGCCriticalSection and ScopedSuspendAll, then the
 *                  mutator lock released so the child can take it; fork; the
 *                  parent takes the lock back and ends the suspension.
 *   Android 15+:   the critical section and the suspension held across the
 *                  fork, thread_list_lock_ held around fork() itself; both
 *                  processes then end the suspension and the section.
 * The child calls art::hprof::DumpHeap(name, fd, false) with fd the write end
 * of a pipe; a thread of the child reads the other end through the stripper
 * and zlib into the output, then the child _exits. */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <jni.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hprof/stream.h"
#include "shim/art_syms.h"
#include "shim/elfsym.h"

#define CHILD_ALARM_S 1800
#define GC_CAUSE_HPROF 15 /* kGcCauseHprof, every version */

static JavaVM *jvm;
static struct art_syms S;
static struct shim_dump_req child_req;
static int api_level;

/* kCollectorTypeHprof: 15 up to Android 10 and from 14, 13 on 11-13. It is
 * only recorded (logs, waits), so a wrong value does no harm. */
static int collector_type_hprof(int api)
{
	return api >= 30 && api <= 33 ? 13 : 15;
}

static int android_api_level(void)
{
	int (*get)(const char *, char *) = (int (*)(const char *, char *))dlsym(RTLD_DEFAULT, "__system_property_get");
	char v[92] = "";

	if (get && get("ro.build.version.sdk", v) > 0)
		return atoi(v);
	return 0; /* not Android (Debian's libart on Linux): decide by the symbols */
}

/* ---- the child ---- */

struct pump {
	int rd;
	struct hprof_strip_stream strip;
	int err;
};

static void *pump_main(void *arg)
{
	struct pump *p = arg;
	static uint8_t buf[1 << 16];
	ssize_t n;

	while ((n = read(p->rd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			p->err = -errno;
			break;
		}
		if (!p->err)
			p->err = hprof_strip_stream_feed(&p->strip, buf, (size_t)n);
	}
	return NULL;
}

static void child_dump(const struct shim_dump_req *req)
{
	void (*dump)(const char *, int, int) = (void (*)(const char *, int, int))S.addr[ART_DUMP_HEAP];
	struct pump p;
	pthread_t t;
	int fds[2], e;
	double t0 = shim_now_ms();

	shim_child_setup(CHILD_ALARM_S);
	memset(&p, 0, sizeof(p));
	if (pipe(fds) != 0)
		shim_child_finish(req, -errno, "pipe", 0, 0, 0, t0);
	p.rd = fds[0];
	if ((e = hprof_strip_stream_open(&p.strip, req->fd, req->op, req->codec, req->level)))
		shim_child_finish(req, e, "opening the output", 0, 0, 0, t0);
	if (pthread_create(&t, NULL, pump_main, &p) != 0)
		shim_child_finish(req, -EAGAIN, "starting the reader", 0, 0, 0, t0);
	dump("oomscope", fds[1], 0);
	close(fds[1]);
	pthread_join(t, NULL);
	if (!p.err)
		p.err = hprof_strip_stream_finish(&p.strip);
	shim_child_finish(req, p.err, p.strip.msg[0] ? p.strip.msg : "writing the dump", p.strip.sink.bytes_in,
			  p.strip.sink.bytes_out, 0, t0);
}

/* ---- the parent ---- */

typedef void (*ctor_gccs_fn)(void *, void *, int, int);
typedef void (*ctor_ssa_fn)(void *, const char *, int);
typedef void (*dtor_fn)(void *);
typedef void (*lock_fn)(void *, void *);

static int art_dump(const struct shim_dump_req *req, struct shim_dump_result *res)
{
	enum art_fork_path path = art_fork_path_for(&S, api_level);
	JNIEnv *env = NULL;
	void *self;
	/* ScopedGCCriticalSection is 24 bytes, ScopedSuspendAll 1: room to spare */
	_Alignas(16) char gccs[64], ssa[64];
	double t0;
	pid_t pid;

	child_req = *req; /* the child's pump thread may reuse reclaimed thread stacks */
	if (path == ART_PATH_NONE) {
		snprintf(res->error, sizeof(res->error), "libart.so lacks the symbols for a fork-dump on API %d",
			 api_level);
		return -1;
	}
	if ((*jvm)->GetEnv(jvm, (void **)&env, JNI_VERSION_1_6) != JNI_OK &&
	    (*jvm)->AttachCurrentThreadAsDaemon(jvm, (void **)&env, NULL) != JNI_OK) {
		snprintf(res->error, sizeof(res->error), "cannot attach the control thread to ART");
		return -1;
	}
	self = S.addr[ART_THREAD_CURRENT] ? ((void *(*)(void))S.addr[ART_THREAD_CURRENT])() : NULL;
	t0 = shim_now_ms();
	switch (path) {
	case ART_PATH_SUSPEND_VM:
		((void (*)(void))S.addr[ART_SUSPEND_VM])();
		pid = fork();
		if (pid == 0)
			child_dump(&child_req);
		((void (*)(void))S.addr[ART_RESUME_VM])();
		break;
	case ART_PATH_MUTATOR_LOCK: {
		void *mutator = *(void **)S.addr[ART_MUTATOR_LOCK];

		((ctor_gccs_fn)S.addr[ART_GCCS_CTOR])(gccs, self, GC_CAUSE_HPROF, collector_type_hprof(api_level));
		((ctor_ssa_fn)S.addr[ART_SSA_CTOR])(ssa, "oomscope fork dump", 1);
		((lock_fn)S.addr[ART_RW_EXCLUSIVE_UNLOCK])(mutator, self);
		((dtor_fn)S.addr[ART_GCCS_DTOR])(gccs);
		pid = fork();
		if (pid == 0)
			child_dump(&child_req);
		((lock_fn)S.addr[ART_RW_EXCLUSIVE_LOCK])(mutator, self);
		((dtor_fn)S.addr[ART_SSA_DTOR])(ssa);
		break;
	}
	case ART_PATH_THREAD_LIST_LOCK:
	default: {
		void *tll = *(void **)S.addr[ART_THREAD_LIST_LOCK];

		((ctor_gccs_fn)S.addr[ART_GCCS_CTOR])(gccs, self, GC_CAUSE_HPROF, collector_type_hprof(api_level));
		((ctor_ssa_fn)S.addr[ART_SSA_CTOR])(ssa, "oomscope fork dump", 1);
		((lock_fn)S.addr[ART_MUTEX_LOCK])(tll, self);
		pid = fork();
		((lock_fn)S.addr[ART_MUTEX_UNLOCK])(tll, self);
		((dtor_fn)S.addr[ART_SSA_DTOR])(ssa);
		((dtor_fn)S.addr[ART_GCCS_DTOR])(gccs);
		if (pid == 0)
			child_dump(&child_req);
		break;
	}
	}
	res->pause_ms = shim_now_ms() - t0;
	if (pid < 0) {
		snprintf(res->error, sizeof(res->error), "fork: %s", strerror(errno));
		return -1;
	}
	res->child = pid;
	return 0;
}

static int art_heap(int64_t *used, int64_t *committed, int64_t *max)
{
	return shim_jni_heap(jvm, used, committed, max);
}

static int art_init(void *vm, int live)
{
	struct elfsym_lib lib;

	(void)live;
	jvm = vm;
	api_level = android_api_level();
	if (elfsym_open_loaded(&lib, "libart.so") == 0) {
		art_syms_resolve(&lib, &S);
		elfsym_close(&lib);
	}
	return shim_control_start() ? -1 : 0;
}

const struct shim_runtime_ops shim_art_ops = {"art", art_init, art_heap, art_dump};
