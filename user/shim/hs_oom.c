/* HotSpot's OutOfMemoryErrors, as JVMTI ResourceExhausted reports them from
 * the thread that raises them: their kind, message, thread and Java stack go
 * to the armed client (control.c), and a Java heap one is dumped there. */
#define _GNU_SOURCE
#include "shim/shim.h"
#include "shim/hs_oom.h"

#include <jvmti.h>
#include <stdio.h>
#include <string.h>

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

/* The throwing thread's Java stack, innermost first: "Class.method:line;..." */
static void java_stack(jvmtiEnv *env, char *out, size_t len)
{
	jvmtiFrameInfo fr[12];
	jint n = 0;
	size_t o = 0;

	out[0] = 0;
	if ((*env)->GetStackTrace(env, NULL, 0, 12, fr, &n) != JVMTI_ERROR_NONE)
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
		o += (size_t)snprintf(out + o, len - o, "%s%s.%s", i ? ";" : "", cls, mname ? mname : "?");
		if (line >= 0 && o < len)
			o += (size_t)snprintf(out + o, len - o, ":%d", (int)line);
		(*env)->Deallocate(env, (unsigned char *)mname);
		(*env)->Deallocate(env, (unsigned char *)csig);
	}
	if (o >= len)
		out[len - 1] = 0;
}

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
	java_stack(env, words, sizeof(words));
	line_word(stack, sizeof(stack), words);
	shim_oom_event(heap ? "heap" : (flags & JVMTI_RESOURCE_EXHAUSTED_THREADS) ? "threads" : "other", heap, msg, thread,
		       stack);
}
