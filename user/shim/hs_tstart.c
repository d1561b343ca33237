/* Who started each Java thread, from the JVM's start (hs_tstart.h). */
#define _GNU_SOURCE
#include "shim/hs_tstart.h"

#include <string.h>
#include <unistd.h>

#include "shim/elfsym.h"
#include "shim/hs_fdopen.h"
#include "shim/libc/shim_libc.h"

#define TS_SLOTS 4096

enum { TS_FREE = 0, TS_WRITING, TS_STARTING, TS_LIVE };

struct ts_slot {
	volatile int state;
	volatile unsigned gen;  /* bumped when the slot is freed: a reader's copy is checked against it */
	jweak thread;           /* TS_STARTING: the Thread being started */
	struct hs_tstart_rec rec;
};

typedef void(JNICALL *start_thread_fn)(JNIEnv *, jobject);

static struct {
	jvmtiEnv *jvmti;
	uintptr_t jvm_start_thread; /* libjvm's JVM_StartThread, what start0 is bound to */
	start_thread_fn orig;       /* set once start0 is wrapped */
	volatile int started_on;    /* ThreadStart is enabled (VMInit) */
	unsigned next;
	unsigned long dropped;
	struct ts_slot slots[TS_SLOTS];
} TS; /* in .bss: 1.1 MB only where it is touched */

int hs_tstart_onload(jvmtiEnv *jvmti)
{
	jvmtiCapabilities caps;
	struct elfsym_lib lib;

	memset(&caps, 0, sizeof(caps));
	caps.can_generate_native_method_bind_events = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE)
		return -1;
	if (elfsym_open_loaded(&lib, "libjvm.so"))
		return -1;
	TS.jvm_start_thread = elfsym_find(&lib, "JVM_StartThread", NULL);
	elfsym_close(&lib);
	if (!TS.jvm_start_thread)
		return -1;
	TS.jvmti = jvmti;
	return 0;
}

int hs_tstart_enable_bind(jvmtiEnv *jvmti)
{
	return (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_NATIVE_METHOD_BIND, NULL) ==
			       JVMTI_ERROR_NONE
		       ? 0
		       : -1;
}

int hs_tstart_active(void)
{
	return TS.orig != NULL && TS.started_on;
}

/* Thread.start0, wrapped: the caller's frames and the Thread kept, then the JVM's own. */
static void JNICALL start_thread(JNIEnv *jni, jobject thread)
{
	struct ts_slot *s = NULL;

	for (unsigned k = 0; k < TS_SLOTS && !s; k++) {
		struct ts_slot *c = &TS.slots[__atomic_fetch_add(&TS.next, 1, __ATOMIC_RELAXED) % TS_SLOTS];
		int expect = TS_FREE;

		if (__atomic_compare_exchange_n(&c->state, &expect, TS_WRITING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			s = c;
	}
	if (!s)
		__atomic_fetch_add(&TS.dropped, 1, __ATOMIC_RELAXED);
	else {
		s->rec.creator = gettid();
		s->rec.tid = 0;
		s->thread = NULL;
		/* before VMInit (the JDK's own Reference Handler, Finalizer...) JVMTI
		 * gives no stack (the wrong phase) and ThreadStart is not on yet: no record */
		if ((*TS.jvmti)->GetStackTrace(TS.jvmti, NULL, 0, HS_TSTART_FRAMES, s->rec.frames, &s->rec.n) ==
			    JVMTI_ERROR_NONE &&
		    s->rec.n > 0 && TS.started_on)
			s->thread = (*jni)->NewWeakGlobalRef(jni, thread);
		if (!s->thread)
			s = (__atomic_store_n(&s->state, TS_FREE, __ATOMIC_RELEASE), NULL);
		else
			__atomic_store_n(&s->state, TS_STARTING, __ATOMIC_RELEASE);
	}
	TS.orig(jni, thread);
	/* no thread made (an OutOfMemoryError, a thread started twice): no ThreadStart will claim it */
	if (s && (*jni)->ExceptionCheck(jni) && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == TS_STARTING) {
		int expect = TS_STARTING;

		if (__atomic_compare_exchange_n(&s->state, &expect, TS_WRITING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			(*jni)->DeleteWeakGlobalRef(jni, s->thread);
			s->thread = NULL;
			__atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&s->state, TS_FREE, __ATOMIC_RELEASE);
		}
	}
}

void JNICALL hs_tstart_bind(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method, void *address,
			    void **new_address)
{
	(void)thread;
	/* called in the primordial phase too, where JNI cannot name the method: its address says it */
	if (!TS.jvm_start_thread || (uintptr_t)address != TS.jvm_start_thread || !new_address) {
		hs_fdopen_bind(jvmti, jni, method, address, new_address); /* the natives that make fds */
		return;
	}
	TS.orig = (start_thread_fn)address;
	*new_address = (void *)start_thread;
}

void hs_tstart_vm_init(jvmtiEnv *jvmti)
{
	if (!TS.orig)
		return;
	if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL) != JVMTI_ERROR_NONE ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL) != JVMTI_ERROR_NONE)
		return;
	__atomic_store_n(&TS.started_on, 1, __ATOMIC_RELEASE);
}

/* On the new thread: its record, found by its Thread, gets its tid. */
void JNICALL hs_tstart_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	(void)jvmti;
	for (unsigned i = 0; i < TS_SLOTS; i++) {
		struct ts_slot *s = &TS.slots[i];
		int expect = TS_STARTING;

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TS_STARTING || !(*jni)->IsSameObject(jni, s->thread, thread))
			continue;
		if (!__atomic_compare_exchange_n(&s->state, &expect, TS_WRITING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		(*jni)->DeleteWeakGlobalRef(jni, s->thread);
		s->thread = NULL;
		s->rec.tid = gettid();
		__atomic_store_n(&s->state, TS_LIVE, __ATOMIC_RELEASE);
		return;
	}
}

/* On the ending thread: its record freed (its tid may be given again). */
void JNICALL hs_tstart_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	pid_t me = gettid();

	(void)jvmti;
	(void)jni;
	(void)thread;
	for (unsigned i = 0; i < TS_SLOTS; i++) {
		struct ts_slot *s = &TS.slots[i];
		int expect = TS_LIVE;

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TS_LIVE || s->rec.tid != me)
			continue;
		if (__atomic_compare_exchange_n(&s->state, &expect, TS_WRITING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			__atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&s->state, TS_FREE, __ATOMIC_RELEASE);
		}
		return;
	}
}

int hs_tstart_next(unsigned *cursor, struct hs_tstart_rec *out)
{
	for (; *cursor < TS_SLOTS; (*cursor)++) {
		struct ts_slot *s = &TS.slots[*cursor];
		unsigned gen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TS_LIVE)
			continue;
		memcpy(out, &s->rec, sizeof(*out));
		/* freed (and perhaps taken again) while copied: not this record any more */
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TS_LIVE || __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != gen)
			continue;
		(*cursor)++;
		return 1;
	}
	return 0;
}

unsigned long hs_tstart_dropped(void)
{
	return __atomic_load_n(&TS.dropped, __ATOMIC_RELAXED);
}
