/* mem_target: grows its memory, for the memory rule and its growth by code.
 *   mem_target [-m malloc|mmap|cache|thrash] [-r MB/s] [-L MB] [-t SECS] [-w] [-T] [-f FILE]
 * malloc: leak_session_buffers mallocs 1 MiB blocks and fills them (a native
 *   leak); mmap: map_scratch_regions maps 1 MiB anonymous regions and fills
 *   them; cache: fill_cache_file writes FILE (default a temporary file) and
 *   read_cache_file maps it and reads it back (its pages are file cache,
 *   reclaimable: no leak); thrash: writes a file of -L MB (default 256) and
 *   reads it again and again (thrash_cache_file), which in a memory cgroup
 *   smaller than it stalls on reclaim and refaults: memory pressure.
 *   At -r MB a second (default 32) up to -L MB
 *   (default: no limit), then holds. Prints "ready pid=N", then
 *   "grown MB" every second. Ends after -t SECS (60), or on SIGTERM (with
 *   -T, SIGTERM kills it, as it does a program that does not catch it). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MB (1024 * 1024)

static volatile sig_atomic_t stop, go;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_go(int sig)
{
	(void)sig;
	go = 1;
}

/* global: the blocks stay reachable, so the compiler keeps every write */
void *mem_target_kept[1 << 16];
static size_t nkept;

__attribute__((noinline)) static void leak_session_buffers(void)
{
	char *p = malloc(MB);

	if (!p)
		return;
	memset(p, 0x5a, MB); /* touched: resident */
	mem_target_kept[nkept++ % (sizeof(mem_target_kept) / sizeof(*mem_target_kept))] = p;
}

__attribute__((noinline)) static void map_scratch_regions(void)
{
	char *p = mmap(NULL, MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	memset(p, 0x3c, MB);
	mem_target_kept[nkept++ % (sizeof(mem_target_kept) / sizeof(*mem_target_kept))] = p;
}

static int cache_fd = -1;
static off_t cache_size;

__attribute__((noinline)) static void fill_cache_file(void)
{
	static char buf[MB];

	memset(buf, 0x11, sizeof(buf));
	if (pwrite(cache_fd, buf, sizeof(buf), cache_size) == (ssize_t)sizeof(buf))
		cache_size += MB;
}

__attribute__((noinline)) static unsigned read_cache_file(void)
{
	volatile unsigned sum = 0;
	unsigned char *p = mmap(NULL, MB, PROT_READ, MAP_SHARED, cache_fd, cache_size - MB);

	if (p == MAP_FAILED)
		return 0;
	for (size_t i = 0; i < MB; i += 4096)
		sum += p[i]; /* faulted in from the file cache */
	mem_target_kept[nkept++ % (sizeof(mem_target_kept) / sizeof(*mem_target_kept))] = p;
	return sum;
}

/* the whole file mapped and read, page by page, again and again */
__attribute__((noinline)) static unsigned thrash_cache_file(void)
{
	volatile unsigned sum = 0;
	unsigned char *p = mmap(NULL, (size_t)cache_size, PROT_READ, MAP_SHARED, cache_fd, 0);

	if (p == MAP_FAILED)
		return 0;
	for (off_t i = 0; i < cache_size; i += 4096)
		sum += p[i];
	munmap(p, (size_t)cache_size);
	return sum;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *mode = "malloc", *file = NULL;
	double rate = 32, secs = 60, limit = 0, start, last_say;
	int wait = 0, term_kills = 0, opt;
	size_t grown = 0;
	char tmp[] = "/tmp/mem_target.XXXXXX";

	while ((opt = getopt(argc, argv, "m:r:L:t:wTf:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'r': rate = atof(optarg); break;
		case 'L': limit = atof(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'w': wait = 1; break;
		case 'T': term_kills = 1; break;
		case 'f': file = optarg; break;
		default:
			fprintf(stderr, "usage: mem_target [-m malloc|mmap|cache] [-r MB/s] [-L MB] [-t SECS] [-w] [-T] [-f FILE]\n");
			return 2;
		}
	}
	if (strcmp(mode, "malloc") && strcmp(mode, "mmap") && strcmp(mode, "cache") && strcmp(mode, "thrash")) {
		fprintf(stderr, "mem_target: -m malloc, mmap, cache or thrash\n");
		return 2;
	}
	if (rate <= 0) {
		fprintf(stderr, "mem_target: -r must be > 0\n");
		return 2;
	}
	if (!term_kills)
		signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	signal(SIGUSR1, on_go);
	if (!strcmp(mode, "cache") || !strcmp(mode, "thrash")) {
		cache_fd = file ? open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : mkstemp(tmp);
		if (cache_fd < 0) {
			perror("mem_target: cache file");
			return 1;
		}
		if (!file)
			unlink(tmp);
	}
	printf(wait ? "waiting pid=%d\n" : "ready pid=%d\n", (int)getpid());
	fflush(stdout);
	while (wait && !go && !stop)
		pause();
	if (!strcmp(mode, "thrash")) { /* the file first, then nothing but reading it */
		for (double mb = limit ? limit : 256; cache_size < (off_t)mb * MB && !stop;)
			fill_cache_file();
		start = last_say = now();
		while (!stop && now() - start < secs) {
			thrash_cache_file();
			grown++;
			if (now() - last_say >= 1) {
				printf("passes %zu\n", grown);
				fflush(stdout);
				last_say = now();
			}
		}
		return 0;
	}
	start = last_say = now();
	while (!stop && now() - start < secs) {
		double t = now() - start;

		/* on schedule: grown MB by now, unless at the limit */
		while (!stop && grown < rate * t && (!limit || grown < limit)) {
			if (!strcmp(mode, "malloc"))
				leak_session_buffers();
			else if (!strcmp(mode, "mmap"))
				map_scratch_regions();
			else {
				fill_cache_file();
				read_cache_file();
			}
			grown++;
		}
		if (now() - last_say >= 1) {
			printf("grown %zu\n", grown);
			fflush(stdout);
			last_say = now();
		}
		usleep(10000);
	}
	return 0;
}
