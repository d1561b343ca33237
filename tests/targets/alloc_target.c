/* A target that makes single large allocations of known sizes through every
 * libc entry point, each from a named function in a named thread, plus small
 * ones that must not be reported:
 *   loader:  load_image     malloc          40 MiB
 *            load_image     malloc           1 MiB x 32 (under the threshold)
 *   decoder: decode_frames  calloc          10 x 2 MiB
 *            grow_buffer    realloc         64 KiB -> 24 MiB
 *   cache:   make_pool      posix_memalign  16 MiB
 *            make_pool      aligned_alloc   12 MiB
 *            make_pool      memalign        10 MiB
 *            make_pool      valloc           9 MiB
 *   arena:   arena_grow     malloc          12 MiB, freed at once (an mmap)
 *            arena_grow     malloc          10 MiB (from the thread's arena,
 *                           which grows by mprotect: glibc raised its mmap
 *                           threshold at the free)
 *   main:    map_region     mmap (anonymous) 32 MiB
 *            grow_heap      sbrk            16 MiB
 * It prints "ready pid=N", waits for SIGUSR1, allocates (one thread after
 * another, so the order is known), prints "allocated", frees load_image's
 * block (with -h, only at a second SIGUSR1, else a second later) and prints
 * "freed", then sleeps until killed. The blocks are freed
 * only after all are made: glibc raises its mmap threshold when an mmap-ed
 * block is freed, and later big blocks would come from the heap instead. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB (1024UL * 1024)

/* volatile: the compiler may drop an allocation whose result is never read */
static void *volatile image, *volatile frames, *volatile buffer, *volatile pool[4], *volatile region, *volatile small[32],
	*volatile arena;
static volatile sig_atomic_t go;

static void on_usr1(int sig) { (void)sig; go = 1; }

__attribute__((noinline)) static void load_image(void)
{
	image = malloc(40 * MiB);
	memset(image, 1, 4096);
	for (int i = 0; i < 32; i++)
		small[i] = malloc(1 * MiB);
}

__attribute__((noinline)) static void decode_frames(void)
{
	frames = calloc(10, 2 * MiB);
}

__attribute__((noinline)) static void grow_buffer(void)
{
	buffer = malloc(64 * 1024);
	buffer = realloc(buffer, 24 * MiB);
}

__attribute__((noinline)) static void make_pool(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, 16 * MiB) == 0)
		pool[0] = p;
	pool[1] = aligned_alloc(4096, 12 * MiB);
	pool[2] = memalign(4096, 10 * MiB);
	pool[3] = valloc(9 * MiB);
}

__attribute__((noinline)) static void arena_grow(void)
{
	arena = malloc(12 * MiB); /* through the volatile: not elided */
	memset(arena, 1, 4096);
	free(arena);
	arena = malloc(10 * MiB);
	memset(arena, 1, 4096);
}

__attribute__((noinline)) static void map_region(void)
{
	region = mmap(NULL, 32 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

__attribute__((noinline)) static void grow_heap(void)
{
	sbrk(16 * MiB);
}

struct job {
	const char *name;
	void (**fns)(void);
};

static void *run(void *arg)
{
	struct job *j = arg;

	pthread_setname_np(pthread_self(), j->name); /* before any allocation */
	for (int i = 0; j->fns[i]; i++)
		j->fns[i]();
	return NULL;
}

static void in_thread(const char *name, void (**fns)(void))
{
	struct job j = {name, fns};
	pthread_t t;

	pthread_create(&t, NULL, run, &j);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	int hold = argc > 1 && !strcmp(argv[1], "-h");
	static void (*loader[])(void) = {load_image, NULL};
	static void (*decoder[])(void) = {decode_frames, grow_buffer, NULL};
	static void (*cache[])(void) = {make_pool, NULL};
	static void (*arena_job[])(void) = {arena_grow, NULL};

	signal(SIGUSR1, on_usr1);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	while (!go)
		pause();
	in_thread("loader", loader);
	in_thread("decoder", decoder);
	in_thread("cache", cache);
	in_thread("arena", arena_job);
	map_region();
	grow_heap();
	printf("allocated\n");
	fflush(stdout);
	if (hold) {
		go = 0;
		while (!go)
			pause();
	} else {
		sleep(1);
	}
	free(image);
	printf("freed\n");
	fflush(stdout);
	for (;;)
		pause();
}
