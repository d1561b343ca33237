/* android_app: an app laid out as on Android, for android.bats. Run in its
 * own mount namespace whose root has libc at
 * /apex/com.android.runtime/lib64/bionic/libc.so, libart.so at
 * /apex/com.android.art/lib64/libart.so and its own code at
 * /system/lib64/libandroid_app.so.
 *   android_app LIBART OFF_HEAP_OOM OFF_THREAD_OOM OFF_GC_RUN [BASE_ODEX BOOT_OAT]
 * Maps LIBART (as the runtime would: executable, from the file) and, when
 * given, the oat files' stand-ins (make_oat.sh), and prints `ready pid=N`.
 * On SIGUSR1 it opens 20 files from the app's compiled Java through the
 * platform's (CacheLoader.openAll -> FileInputStream.<init>, reached
 * through each file's "oatdata" table), 30 files (app_open_cache_files), starts
 * a thread (app_start_worker), allocates 40 MiB (app_load_image), then enters
 * three of libart.so's functions at the given file offsets, as a failing
 * allocation and a collection would: Heap::ThrowOutOfMemoryError(heap, NULL,
 * 44040192, 0), Thread::ThrowOutOfMemoryError(NULL, MSG) and
 * GarbageCollector::Run(NULL, 1, false). No ART runs here, so each faults
 * once past its first instructions (its relocations were never applied); the
 * fault is caught and reported, `art FN: signal S`. Then `done`; it ends on
 * SIGTERM or after 120 s. With ANDROID_APP_NAME in its environment it takes
 * that name first, as zygote names an app's process: its command line (the
 * arguments' memory overwritten) and its thread name (the last 15 bytes).
 * With ANDROID_APP_DUMPABLE=0 it is not dumpable, as zygote leaves a
 * process it gave no JDWP (a release app on a user build, or on Android 14
 * and later without the JDWP property at boot). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

int app_open_cache_files(int n);
void *app_load_image(size_t bytes);
int app_start_worker(void);

/* as ART words a failure in a fragmented region space (heap.cc, region_space.cc) */
#define OOM_MSG                                                                                                 \
	"Failed to allocate a 44040208 byte allocation with 50331648 free bytes and 30MB until OOM, target "   \
	"footprint 268435456, growth limit 268435456; failed due to fragmentation (largest possible contiguous " \
	"allocation 20971520 bytes)"

static sigjmp_buf fault_jmp;

static void on_fault(int sig) { siglongjmp(fault_jmp, sig); }

/* the function at file offset off of the mapped library, entered with a
 * faulting guard around it */
static int enter(const char *base, unsigned long off, const char *name, long a0, long a1, long a2, long a3)
{
	long (*fn)(long, long, long, long) = (long (*)(long, long, long, long))(base + off);
	int sig = sigsetjmp(fault_jmp, 1);

	if (!sig)
		fn(a0, a1, a2, a3);
	printf("art %s: signal %d\n", name, sig);
	fflush(stdout);
	return sig;
}

int main(int argc, char **argv)
{
	static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
	static char fake_heap[1 << 16];
	struct sigaction sa;
	struct stat st;
	sigset_t set;
	char *base;
	int fd, sig;

	const void *const *app_oat = NULL, *const *boot_oat = NULL;
	const char *name = getenv("ANDROID_APP_NAME");

	if (name && argc > 0) {
		/* the arguments kept, then their memory given to the name */
		size_t area = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]), n = strlen(name);
		char **copy = calloc((size_t)argc + 1, sizeof(*copy));

		for (int i = 0; copy && i < argc; i++)
			copy[i] = strdup(argv[i]);
		if (!copy || n > area)
			return fprintf(stderr, "android_app: cannot take the name %s\n", name), 1;
		memset(argv[0], 0, area);
		memcpy(argv[0], name, n);
		argv = copy;
		prctl(PR_SET_NAME, (unsigned long)(n > 15 ? name + n - 15 : name), 0, 0, 0);
	}

	if (getenv("ANDROID_APP_DUMPABLE") && !strcmp(getenv("ANDROID_APP_DUMPABLE"), "0"))
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (argc != 5 && argc != 7)
		return fprintf(stderr, "usage: android_app LIBART OFF_HEAP_OOM OFF_THREAD_OOM OFF_GC_RUN [BASE_ODEX BOOT_OAT]\n"), 2;
	if (argc == 7) {
		void *a = dlopen(argv[5], RTLD_NOW | RTLD_LOCAL), *b = dlopen(argv[6], RTLD_NOW | RTLD_LOCAL);

		app_oat = a ? dlsym(a, "oatdata") : NULL;
		boot_oat = b ? dlsym(b, "oatdata") : NULL;
		if (!app_oat || !boot_oat)
			return fprintf(stderr, "android_app: %s\n", dlerror()), 1;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return perror(argv[1]), 1;
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED)
		return perror("mmap"), 1;
	close(fd);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_NODEFER;
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigaction(faults[i], &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm(120);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 0;
	if (app_oat) {
		int (*open_all)(int (*)(const char *), const char *, int) = (int (*)(int (*)(const char *), const char *, int))app_oat[0];

		printf("opened from compiled Java %d\n", open_all((int (*)(const char *))boot_oat[0], argv[6], 20));
	}
	printf("opened %d\n", app_open_cache_files(30));
	printf("worker %d\n", app_start_worker());
	printf("image %s\n", app_load_image(40 << 20) ? "ok" : "failed");
	fflush(stdout);
	enter(base, strtoul(argv[2], NULL, 0), "Heap::ThrowOutOfMemoryError", (long)fake_heap, 0, 44040192, 0);
	enter(base, strtoul(argv[3], NULL, 0), "Thread::ThrowOutOfMemoryError", 0, (long)OOM_MSG, 0, 0);
	enter(base, strtoul(argv[4], NULL, 0), "GarbageCollector::Run", 0, 1, 0, 0);
	printf("done\n");
	fflush(stdout);
	sigwait(&set, &sig);
	return 0;
}
