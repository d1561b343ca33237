/* HotSpot's OutOfMemoryErrors, as JVMTI ResourceExhausted reports them from
 * the thread that raises them: their kind, message, thread and Java stack go
 * to the armed client (control.c), and a Java heap one is dumped there. */
#define _GNU_SOURCE
#include "shim/shim.h"
#include "shim/hs_oom.h"

#include <jvmti.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim/classfile.h"

/* A word safe inside a shim line: spaces and the like %-escaped. */
static void line_word(char *out, size_t len, const char *in)
{
	size_t o = 0;

	for (; in && *in && o + 4 < len; in++) {
		unsigned char ch = (unsigned char)*in;

		if (ch <= ' ' || ch == '%' || ch >= 0x7f)
			o += (size_t)snprintf(out + o, len - o, "%%%02X", ch);
		else
			out[o++] = (char)ch;
	}
	out[o] = 0;
}

/* "Ljava/util/ArrayList;" -> "java.util.ArrayList" */
static void class_name(char *out, size_t len, const char *sig)
{
	size_t o = 0;

	if (sig && *sig == 'L')
		sig++;
	for (; sig && *sig && *sig != ';' && o + 1 < len; sig++)
		out[o++] = *sig == '/' ? '.' : *sig;
	out[o] = 0;
}

/* The throwing thread's Java stack, innermost first: "Class.method:line;...";
 * built: the hook's frame and the error's constructors left out (the
 * stack starts where the error was made) */
static void java_stack(jvmtiEnv *env, char *out, size_t len, int built)
{
	jvmtiFrameInfo fr[16];
	jint n = 0;
	size_t o = 0;
	int first = 1;

	out[0] = 0;
	if ((*env)->GetStackTrace(env, NULL, 0, 16, fr, &n) != JVMTI_ERROR_NONE)
		return;
	for (jint i = 0; i < n && o + 2 < len; i++) {
		char *mname = NULL, *csig = NULL, cls[256];
		jclass k = NULL;
		jint line = -1, nl = 0;
		jvmtiLineNumberEntry *lines = NULL;

		(*env)->GetMethodName(env, fr[i].method, &mname, NULL, NULL);
		if ((*env)->GetMethodDeclaringClass(env, fr[i].method, &k) == JVMTI_ERROR_NONE)
			(*env)->GetClassSignature(env, k, &csig, NULL);
		if ((*env)->GetLineNumberTable(env, fr[i].method, &nl, &lines) == JVMTI_ERROR_NONE) {
			for (jint l = 0; l < nl; l++)
				if (lines[l].start_location <= fr[i].location)
					line = lines[l].line_number;
			(*env)->Deallocate(env, (unsigned char *)lines);
		}
		class_name(cls, sizeof(cls), csig);
		if (built && first && (!strcmp(cls, "oomscope.OomHook") || (mname && !strcmp(mname, "<init>")))) {
			(*env)->Deallocate(env, (unsigned char *)mname);
			(*env)->Deallocate(env, (unsigned char *)csig);
			continue;
		}
		o += (size_t)snprintf(out + o, len - o, "%s%s.%s", first ? "" : ";", cls, mname ? mname : "?");
		first = 0;
		if (line >= 0 && o < len)
			o += (size_t)snprintf(out + o, len - o, ":%d", (int)line);
		(*env)->Deallocate(env, (unsigned char *)mname);
		(*env)->Deallocate(env, (unsigned char *)csig);
	}
	if (o >= len)
		out[len - 1] = 0;
}

static void remember_exhausted(const char *what);

/* JVMTI ResourceExhausted: HotSpot posts it from the thread whose
 * allocation failed, before the OutOfMemoryError is thrown. */
void JNICALL shim_hs_on_exhausted(jvmtiEnv *env, JNIEnv *jni, jint flags, const void *reserved, const char *what)
{
	jvmtiThreadInfo ti;
	char thread[160] = "?", msg[200], stack[300], words[300];
	int heap = (flags & JVMTI_RESOURCE_EXHAUSTED_JAVA_HEAP) != 0;

	(void)jni;
	(void)reserved;
	memset(&ti, 0, sizeof(ti));
	if ((*env)->GetThreadInfo(env, NULL, &ti) == JVMTI_ERROR_NONE && ti.name) {
		line_word(thread, sizeof(thread), ti.name);
		(*env)->Deallocate(env, (unsigned char *)ti.name);
	}
	line_word(msg, sizeof(msg), what);
	java_stack(env, words, sizeof(words), 0);
	line_word(stack, sizeof(stack), words);
	remember_exhausted(what);
	shim_oom_event(heap ? "heap" : (flags & JVMTI_RESOURCE_EXHAUSTED_THREADS) ? "threads" : "other", heap, msg, thread,
		       stack);
}

/* ---- the OutOfMemoryErrors Java code builds ---- */

#define HOOK_CLASS "oomscope/OomHook"
#define HOOK_METHOD "made"
#define HOOK_DESC "(Ljava/lang/Throwable;)V"

static jvmtiEnv *hook_env;
static int hook_installing;

/* The VM builds some of its errors with a constructor after
 * ResourceExhausted said so ("unable to create native thread"): the
 * thread and message it last reported, so the hook does not tell it twice. */
static struct {
	pid_t tid;
	char what[200];
} exhausted[16];
static unsigned exhausted_next;

static void remember_exhausted(const char *what)
{
	unsigned i = __atomic_fetch_add(&exhausted_next, 1, __ATOMIC_RELAXED) % 16;

	exhausted[i].tid = gettid();
	snprintf(exhausted[i].what, sizeof(exhausted[i].what), "%s", what ? what : "");
}

static int told_already(const char *what)
{
	pid_t tid = gettid();

	for (unsigned i = 0; i < 16; i++)
		if (exhausted[i].tid == tid && !strcmp(exhausted[i].what, what)) {
			exhausted[i].tid = 0;
			return 1;
		}
	return 0;
}

/* What ran out, by the error's words: where a heap dump explains it, it
 * is taken (direct buffers and class loaders are objects of the heap) */
static const char *kind_of(const char *what, int *dump)
{
	*dump = 1;
	if (strstr(what, "direct buffer memory") || strstr(what, "Direct buffer memory"))
		return "direct";
	if (strstr(what, "Metaspace") || strstr(what, "Compressed class space"))
		return "metaspace";
	if (strstr(what, "Java heap space") || strstr(what, "GC overhead") || strstr(what, "Requested array size"))
		return "heap";
	*dump = 0;
	return strstr(what, "native thread") ? "threads" : "other";
}

/* oomscope.OomHook.made(Throwable): from each constructor, with the error
 * built (its message set), on the thread that builds it. */
static void JNICALL hook_made(JNIEnv *jni, jclass self, jobject error)
{
	static jfieldID detail;
	jvmtiThreadInfo ti;
	char thread[160] = "?", what[200] = "", msg[300], stack[300], words[300];
	jstring s = NULL;
	int dump;
	const char *kind;

	(void)self;
	if (!hook_env || !error)
		return;
	if (!detail) {
		jclass t = (*jni)->FindClass(jni, "java/lang/Throwable");

		detail = t ? (*jni)->GetFieldID(jni, t, "detailMessage", "Ljava/lang/String;") : NULL;
		if ((*jni)->ExceptionCheck(jni))
			(*jni)->ExceptionClear(jni);
	}
	if (detail && (s = (*jni)->GetObjectField(jni, error, detail))) {
		const char *c = (*jni)->GetStringUTFChars(jni, s, NULL);

		if (c) {
			snprintf(what, sizeof(what), "%s", c);
			(*jni)->ReleaseStringUTFChars(jni, s, c);
		}
		(*jni)->DeleteLocalRef(jni, s);
	}
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (told_already(what))
		return;
	memset(&ti, 0, sizeof(ti));
	if ((*hook_env)->GetThreadInfo(hook_env, NULL, &ti) == JVMTI_ERROR_NONE && ti.name) {
		line_word(thread, sizeof(thread), ti.name);
		(*hook_env)->Deallocate(hook_env, (unsigned char *)ti.name);
	}
	java_stack(hook_env, words, sizeof(words), 1);
	/* made in a static initializer: an error kept for later (a library's
	 * preallocated one, as the VM keeps its own), not one running out now */
	if (strstr(words, ".<clinit>"))
		return;
	kind = kind_of(what, &dump);
	line_word(msg, sizeof(msg), what);
	line_word(stack, sizeof(stack), words);
	shim_oom_event(kind, dump, msg, thread, stack);
}

void JNICALL shim_hs_oomhook_cflh(jvmtiEnv *env, JNIEnv *jni, jclass redefined, jobject loader, const char *name,
				  jobject domain, jint len, const unsigned char *data, jint *new_len,
				  unsigned char **new_data)
{
	unsigned char *out = NULL;
	long n;
	int hooked = 0;

	(void)jni;
	(void)redefined;
	(void)loader;
	(void)domain;
	if (!hook_installing || !name || strcmp(name, "java/lang/OutOfMemoryError") || len <= 0 ||
	    (*env)->Allocate(env, (jlong)len + 512, &out) != JVMTI_ERROR_NONE)
		return;
	n = shim_classfile_hook_ctors(data, (size_t)len, HOOK_CLASS, HOOK_METHOD, HOOK_DESC, out, (size_t)len + 512,
				      &hooked);
	if (n <= 0 || !hooked) {
		(*env)->Deallocate(env, out);
		return;
	}
	*new_len = (jint)n;
	*new_data = out;
}

int shim_hs_oomhook_install(jvmtiEnv *env, JNIEnv *jni, char *why, size_t why_len)
{
	static const JNINativeMethod native = {HOOK_METHOD, HOOK_DESC, (void *)hook_made};
	uint8_t bytes[256];
	long n = shim_classfile_hook_class(HOOK_CLASS, HOOK_METHOD, HOOK_DESC, bytes, sizeof(bytes));
	jclass hook, oome;
	jvmtiError e;

	if (hook_env)
		return 0;
	if (n <= 0 || !(hook = (*jni)->DefineClass(jni, HOOK_CLASS, NULL, (const jbyte *)bytes, (jsize)n))) {
		if ((*jni)->ExceptionCheck(jni))
			(*jni)->ExceptionClear(jni);
		snprintf(why, why_len, "cannot define the hook class in the boot loader");
		return -1;
	}
	if ((*jni)->RegisterNatives(jni, hook, &native, 1) != 0) {
		(*jni)->ExceptionClear(jni);
		snprintf(why, why_len, "cannot register the hook's native method");
		return -1;
	}
	/* JDK 9+: java.base reads only what it is told to; the hook lives in
	 * the boot loader's unnamed module */
	if ((*jni)->GetVersion(jni) >= JNI_VERSION_9) {
		jobject base = NULL, mine = (*jni)->GetModule(jni, hook);

		if ((*env)->GetNamedModule(env, NULL, "java/lang", &base) != JVMTI_ERROR_NONE || !base || !mine ||
		    (*env)->AddModuleReads(env, base, mine) != JVMTI_ERROR_NONE) {
			snprintf(why, why_len, "java.base cannot be made to read the hook's module");
			return -1;
		}
	}
	oome = (*jni)->FindClass(jni, "java/lang/OutOfMemoryError");
	if (!oome) {
		(*jni)->ExceptionClear(jni);
		snprintf(why, why_len, "no java.lang.OutOfMemoryError");
		return -1;
	}
	hook_env = env;
	/* the class file hook on only for this one retransformation */
	hook_installing = 1;
	(*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
	e = (*env)->RetransformClasses(env, 1, &oome);
	(*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
	hook_installing = 0;
	if (e != JVMTI_ERROR_NONE) {
		hook_env = NULL;
		snprintf(why, why_len, "retransforming java.lang.OutOfMemoryError failed (JVMTI error %d)", (int)e);
		return -1;
	}
	return 0;
}
