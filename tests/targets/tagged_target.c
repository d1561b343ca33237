/* tagged_target: large allocations through every libc entry point, then
 * every one freed, for an allocator that returns top-byte-tagged pointers.
 *   tagged_target [-t SECS]
 * Run under glibc's memory tagging (GLIBC_TUNABLES=glibc.mem.tagging=1 on
 * an arm64 kernel with MTE: qemu -M virt,mte=on) its blocks carry a tag in
 * bits 56-59 (never 0: glibc excludes it), as scudo's do on Android 11+.
 * On SIGUSR1: load_image malloc 40 MiB, decode_frames calloc 20 MiB,
 * grow_buffer realloc(NULL) 24 MiB, make_pool posix_memalign 16,
 * aligned_alloc 12, memalign 10, valloc 9 MiB; each block's first page
 * written through its pointer; then release_all frees them.
 * Prints `ready pid=N`, `block FN 0xPTR` per live block, `freed`.
 * It makes no small allocation once ready, and only write(2)s: glibc 2.36's
 * tagging faults on small blocks under qemu (its large ones are mmapped). */
#define _GNU_SOURCE
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB (1024 * 1024UL)

static void say(const char *fmt, const char *fn, const void *p)
{
	char line[128];
	int n = snprintf(line, sizeof(line), fmt, fn, p);

	if (n > 0 && write(1, line, (size_t)n) < 0)
		_exit(1);
}

static void *touched(const char *fn, void *p)
{
	if (!p) {
		say("%s: allocation failed %p\n", fn, NULL);
		_exit(1);
	}
	memset(p, 0x5a, 4096);
	say("block %s %p\n", fn, p);
	return p;
}

static void *blocks[7];

__attribute__((noinline)) void load_image(void) { blocks[0] = touched("load_image", malloc(40 * MiB)); }

__attribute__((noinline)) void decode_frames(void) { blocks[1] = touched("decode_frames", calloc(20, MiB)); }

/* realloc of a new block only: glibc 2.36's tagging faults in realloc of an
 * mmapped block (as in small blocks) under qemu */
__attribute__((noinline)) void grow_buffer(void) { blocks[2] = touched("grow_buffer", realloc(NULL, 24 * MiB)); }

__attribute__((noinline)) void make_pool(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, 16 * MiB))
		p = NULL;
	blocks[3] = touched("make_pool", p);
	blocks[4] = touched("make_pool", aligned_alloc(4096, 12 * MiB));
	blocks[5] = touched("make_pool", memalign(4096, 10 * MiB));
	blocks[6] = touched("make_pool", valloc(9 * MiB));
}

__attribute__((noinline)) void release_all(void)
{
	for (int i = 0; i < 7; i++)
		free(blocks[i]);
}

int main(int argc, char **argv)
{
	int c, secs = 60, sig;
	sigset_t set;

	while ((c = getopt(argc, argv, "t:")) != -1) {
		if (c != 't')
			return fprintf(stderr, "usage: tagged_target [-t SECS]\n"), 2;
		secs = atoi(optarg);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm((unsigned)secs);
	{
		char line[64];
		int n = snprintf(line, sizeof(line), "ready pid=%d\n", (int)getpid());

		if (write(1, line, (size_t)n) < 0)
			return 1;
	}
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 0;
	load_image();
	decode_frames();
	grow_buffer();
	make_pool();
	release_all();
	if (write(1, "freed\n", 6) < 0)
		return 1;
	/* stay until told (the watcher reads the frees first) */
	sigwait(&set, &sig);
	return 0;
}
