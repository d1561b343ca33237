/* shim_load LIB: loads the shim the way a runtime would (dlopen, then its
 * Agent_OnLoad) in a process of this program's libc (built with musl-gcc, and
 * with glibc), with a JavaVM that offers no environment: the shim must load,
 * find no Java runtime, say so in one line and refuse, never crash. Prints
 * "loaded", then "Agent_OnLoad=<jint>". */
#include <dlfcn.h>
#include <stdio.h>

typedef int jint;
struct vm_functions;
typedef const struct vm_functions *JavaVM;
struct vm_functions {
	void *reserved0, *reserved1, *reserved2;
	jint (*DestroyJavaVM)(JavaVM *);
	jint (*AttachCurrentThread)(JavaVM *, void **, void *);
	jint (*DetachCurrentThread)(JavaVM *);
	jint (*GetEnv)(JavaVM *, void **, jint);
	jint (*AttachCurrentThreadAsDaemon)(JavaVM *, void **, void *);
};

static jint no_env(JavaVM *vm, void **env, jint version)
{
	(void)vm;
	(void)version;
	*env = NULL;
	return -3; /* JNI_EVERSION */
}

static jint refuse(JavaVM *vm, void **env, void *args)
{
	(void)vm;
	(void)args;
	*env = NULL;
	return -1;
}

int main(int argc, char **argv)
{
	static const struct vm_functions fns = {0, 0, 0, 0, refuse, 0, no_env, refuse};
	JavaVM vm = &fns;
	void *h;
	jint (*onload)(JavaVM *, char *, void *);

	if (argc != 2) {
		fprintf(stderr, "usage: shim_load LIB\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen failed: %s\n", dlerror());
		return 1;
	}
	printf("loaded\n");
	fflush(stdout);
	onload = (jint(*)(JavaVM *, char *, void *))dlsym(h, "Agent_OnLoad");
	if (!onload) {
		printf("no Agent_OnLoad\n");
		return 1;
	}
	printf("Agent_OnLoad=%d\n", onload(&vm, "", NULL));
	return 0;
}
