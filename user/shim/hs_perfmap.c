/* The JIT's perf map (hs_perfmap.h). */
#define _GNU_SOURCE
#include "shim/hs_perfmap.h"
#include "shim/shim.h"
#include "shim/libc/shim_libc.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int map_fd = -1;
static jvmtiEnv *PM;

/* "Lcom/foo/Bar;" to "com.foo.Bar", "I" to "int", "[J" to "long[]"; the
 * length of the descriptor read in *used. */
static size_t java_type(const char *d, char *out, size_t len, size_t *used)
{
	static const struct {
		char c;
		const char *name;
	} prim[] = {{'Z', "boolean"}, {'B', "byte"}, {'C', "char"}, {'S', "short"}, {'I', "int"},
		    {'J', "long"},    {'F', "float"}, {'D', "double"}, {'V', "void"}};
	size_t dims = 0, n = 0, at = 0;

	while (d[dims] == '[')
		dims++;
	if (d[dims] == 'L') {
		const char *end = strchr(d + dims, ';');

		if (!end)
			end = d + dims + strlen(d + dims) - 1;
		for (const char *p = d + dims + 1; p < end && at + 1 < len; p++)
			out[at++] = *p == '/' ? '.' : *p;
		n = (size_t)(end - d) + 1;
	} else {
		const char *name = "?";

		for (size_t i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
			if (prim[i].c == d[dims])
				name = prim[i].name;
		for (const char *p = name; *p && at + 1 < len; p++)
			out[at++] = *p;
		n = dims + (d[dims] != 0);
	}
	for (size_t i = 0; i < dims && at + 3 < len; i++)
		out[at++] = '[', out[at++] = ']';
	out[at] = 0;
	*used = n ? n : 1;
	return at;
}

/* "RET Class.method(ARG,ARG)" from the class's and the method's signatures. */
static void method_name(const char *cls, const char *name, const char *sig, char *out, size_t len)
{
	char ret[256], klass[512], args[512], t[256];
	size_t used, at = 0;
	const char *p = sig && sig[0] == '(' ? sig + 1 : "";

	java_type(cls, klass, sizeof(klass), &used);
	args[0] = 0;
	while (*p && *p != ')') {
		size_t n = java_type(p, t, sizeof(t), &used);

		if (at && at + 1 < sizeof(args))
			args[at++] = ',';
		for (size_t i = 0; i < n && at + 1 < sizeof(args); i++)
			args[at++] = t[i];
		args[at] = 0;
		p += used;
	}
	java_type(*p == ')' ? p + 1 : "V", ret, sizeof(ret), &used);
	snprintf(out, len, "%s %s.%s(%s)", ret, klass, name, args);
}

static void emit(const void *addr, jint size, const char *name)
{
	char line[1200];
	int n;

	if (map_fd < 0 || !addr || size <= 0)
		return;
	n = snprintf(line, sizeof(line), "%lx %x %s\n", (unsigned long)addr, (unsigned)size, name);
	if (n > 0 && write(map_fd, line, (size_t)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1)) < 0) {
	}
}

static void JNICALL on_compiled(jvmtiEnv *jvmti, jmethodID method, jint size, const void *addr, jint map_len,
				const jvmtiAddrLocationMap *map, const void *info)
{
	char *name = NULL, *sig = NULL, *csig = NULL, text[1024];
	jclass cls = NULL;

	(void)map_len;
	(void)map;
	(void)info;
	if ((*jvmti)->GetMethodName(jvmti, method, &name, &sig, NULL) == JVMTI_ERROR_NONE &&
	    (*jvmti)->GetMethodDeclaringClass(jvmti, method, &cls) == JVMTI_ERROR_NONE &&
	    (*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL) == JVMTI_ERROR_NONE) {
		method_name(csig, name, sig, text, sizeof(text));
		emit(addr, size, text);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
}

static void JNICALL on_generated(jvmtiEnv *jvmti, const char *name, const void *addr, jint size)
{
	(void)jvmti;
	emit(addr, size, name ? name : "stub");
}

int hs_perfmap_onload(jvmtiEnv *jvmti, jvmtiEventCallbacks *ev)
{
	jvmtiCapabilities caps;

	memset(&caps, 0, sizeof(caps));
	caps.can_generate_compiled_method_load_events = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE)
		return -1;
	PM = jvmti;
	ev->CompiledMethodLoad = on_compiled;
	ev->DynamicCodeGenerated = on_generated;
	return 0;
}

void hs_perfmap_start(jvmtiEnv *jvmti)
{
	char path[64];

	if (!PM || map_fd >= 0)
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	/* the JVM's own file (a link planted there is not followed) */
	map_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (map_fd < 0) {
		shim_log("no perf map for the JIT's code: %s: %s", path, strerror(errno));
		return;
	}
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, NULL);
	/* what was compiled and generated before: posted again */
	(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
	(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
}
