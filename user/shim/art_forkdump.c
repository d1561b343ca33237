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
 * The Thread* the suspension and the locks want is the calling thread's, read
 * from bionic's TLS slot for ART (as KOOM does); a thread without one is
 * refused. The child starts no thread (bionic's fork leaves its thread-list
 * lock as it was, and a thread start in the child could wait on it
 * forever): it names itself, sets an alarm scaled with the heap
 * (art_child_alarm_s: 60 s and a second per 4 MB), calls
 * art::hprof::DumpHeap(name, fd, false) straight into the output (the
 * reader strips and compresses) and _exits. Which path: by the ART
 * module's own version where /apex/apex-info-list.xml gives it (ART is
 * updated apart from the platform since Android 12), else the platform's
 * API level. */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <errno.h>
#include <jni.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "shim/art_syms.h"
#include "shim/elfsym.h"
#include "shim/jvmti_env.h"
#include "shim/libc/shim_libc.h"

#define GC_CAUSE_HPROF 15 /* kGcCauseHprof, every version */
#define TLS_SLOT_ART_THREAD_SELF 7 /* bionic's tls_defines.h, on arm, arm64, x86 and x86_64 */

static JavaVM *jvm;
static struct art_syms S;
static struct shim_dump_req child_req;
static int api_level;
static int on_bionic; /* bionic's __system_property_get found: an Android process */
static unsigned child_alarm_s; /* set before the fork, read by the child */

/* kCollectorTypeHprof: 15 up to Android 10 and from 14, 13 on 11-13. It is
 * only recorded (logs, waits), so a wrong value does no harm. */
static int collector_type_hprof(int api)
{
	return api >= 30 && api <= 33 ? 13 : 15;
}

/* The platform's API level (ro.build.version.sdk, by bionic's
 * __system_property_get found in its libc), 0 when not Android. */
static int platform_api_level(void)
{
	struct elfsym_lib lib;
	int (*get)(const char *, char *) = NULL;
	char v[92] = "";

	if (elfsym_open_loaded(&lib, "libc.so") == 0) {
		get = (int (*)(const char *, char *))elfsym_find(&lib, "__system_property_get", NULL);
		elfsym_close(&lib);
	}
	on_bionic = get != NULL;
	if (get && get("ro.build.version.sdk", v) > 0)
		return atoi(v);
	return 0; /* not Android (Debian's libart on Linux): decide by the symbols */
}

/* The API level of the active ART module's train (apex-info-list.xml), or 0. */
static int art_module_api_level(void)
{
	static char xml[65536];

	if (shim_read_file("/apex/apex-info-list.xml", xml, sizeof(xml)) <= 0)
		return 0;
	return art_module_api_from_xml(xml);
}

/* The calling thread's art::Thread*: from bionic's TLS slot for it (as
 * KOOM reads it); off Android (Debian's libart on glibc, whose TLS slot 7 is
 * glibc's pointer guard) art::Thread::CurrentFromGdb(), which reads ART's
 * own thread-local. */
static void *art_thread_self(void)
{
	void **tls;

	if (!on_bionic)
		return S.addr[ART_THREAD_CURRENT] ? ((void *(*)(void))S.addr[ART_THREAD_CURRENT])() : NULL;
#if defined(__aarch64__)
	__asm__("mrs %0, tpidr_el0" : "=r"(tls));
#elif defined(__x86_64__)
	__asm__("mov %%fs:0, %0" : "=r"(tls));
#else
	tls = NULL;
#endif
	return tls ? tls[TLS_SLOT_ART_THREAD_SELF] : NULL;
}

/* ---- the child ---- */

static void child_dump(const struct shim_dump_req *req)
{
	void (*dump)(const char *, int, int) = (void (*)(const char *, int, int))S.addr[ART_DUMP_HEAP];
	double t0 = shim_now_ms();

	shim_malloc_after_fork();
	shim_child_setup(child_alarm_s);
	prctl(PR_SET_NAME, (unsigned long)"oomscope-dump", 0, 0, 0);
	dump("oomscope", req->fd, 0);
	shim_child_finish(req, 0, NULL, 0, 0, 0, t0);
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

	int64_t used = -1, committed, max;

	child_req = *req; /* the child reads it from memory no thread of its reuses */
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
	if (shim_jni_heap(jvm, &used, &committed, &max) != 0)
		used = -1;
	child_alarm_s = art_child_alarm_s(used);
	self = art_thread_self();
	if (!self && path != ART_PATH_SUSPEND_VM) {
		snprintf(res->error, sizeof(res->error), "the control thread has no art::Thread (%s)",
			 on_bionic ? "bionic's TLS slot 7" : "art::Thread::CurrentFromGdb");
		shim_log("fork-dump refused: %s", res->error);
		return -1;
	}
	t0 = shim_now_ms();
	switch (path) {
	case ART_PATH_SUSPEND_VM:
		((void (*)(void))S.addr[ART_SUSPEND_VM])();
		pid = shim_fork();
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
		pid = shim_fork();
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
		pid = shim_fork();
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

/* At launch (-agentpath): the socket opens once the VM is up. Before VMInit
 * ART runs Java code in its unstarted runtime, which aborts on a call it
 * does not know ("Check failed: tables_initialized_"), as the control
 * thread's start (a java.lang.Thread made through JNI) was at OnLoad. */
static void JNICALL art_on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
	(void)env;
	(void)jni;
	(void)thread;
	if (shim_control_start(jvm))
		shim_log("not serving: %s", shim_init_error);
}

static int art_init(void *vm, int live)
{
	struct elfsym_lib lib;
	jvmtiEventCallbacks ev;
	jvmtiEnv *ti = NULL;
	jint ti_version;
	int module;

	jvm = vm;
	api_level = platform_api_level();
	module = art_module_api_level();
	if (module > api_level)
		api_level = module;
	if (elfsym_open_loaded(&lib, "libart.so") == 0) {
		art_syms_resolve(&lib, &S);
		/* symbols only in .gnu_debugdata, which oomscope read for the shim */
		art_syms_from_options(&S, lib.base, shim_options);
		elfsym_close(&lib);
	} else {
		shim_log("libart.so is not mapped in this process");
	}
	if (live)
		return shim_control_start(jvm) ? -1 : 0;
	if (shim_jvmti_env(jvm, &ti, &ti_version) != JNI_OK) {
		snprintf(shim_init_error, sizeof(shim_init_error),
			 "no JVMTI environment (neither 1.2 nor ART's 0x70010200): is -Xplugin:libopenjdkjvmti.so given?");
		return -1;
	}
	memset(&ev, 0, sizeof(ev));
	ev.VMInit = art_on_vm_init;
	if ((*ti)->SetEventCallbacks(ti, &ev, sizeof(ev)) != JVMTI_ERROR_NONE ||
	    (*ti)->SetEventNotificationMode(ti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL) != JVMTI_ERROR_NONE) {
		snprintf(shim_init_error, sizeof(shim_init_error), "ART refused the VMInit event");
		return -1;
	}
	return 0;
}

const struct shim_runtime_ops shim_art_ops = {"art", art_init, art_heap, art_dump, NULL};
