/* A malloc-heavy workload for `make bench`: THREADS threads each make ITERS
 * small allocations (16 B to 4 KiB, freed at once or a little later) and,
 * every 2,000th iteration, one large allocation (12 MiB, touched, freed).
 * Waits for SIGUSR1 when -w is given (so a tracer can attach first), then
 * prints "ns_per_op N" and exits.
 *   malloc_bench [-w] [-t THREADS] [-n ITERS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long iters = 2000000;
static volatile sig_atomic_t go;

static void on_usr1(int sig) { (void)sig; go = 1; }

__attribute__((noinline)) static void *big_block(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 1, 4096);
	return p;
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	void *keep[64] = {0};

	for (long i = 0; i < iters; i++) {
		size_t n = 16 + rand_r(&seed) % 4080;
		void *p = malloc(n);
		int slot = rand_r(&seed) % 64;

		if (p)
			((volatile char *)p)[0] = 1;
		free(keep[slot]);
		keep[slot] = p;
		if (i % 2000 == 1999)
			free(big_block(12u << 20));
	}
	for (int i = 0; i < 64; i++)
		free(keep[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 4, wait = 0, c;
	pthread_t t[64];
	struct timespec a, b;

	while ((c = getopt(argc, argv, "wt:n:")) != -1) {
		if (c == 'w')
			wait = 1;
		else if (c == 't')
			threads = atoi(optarg);
		else if (c == 'n')
			iters = atol(optarg);
	}
	if (threads < 1 || threads > 64 || iters < 1) {
		fprintf(stderr, "usage: malloc_bench [-w] [-t 1..64] [-n ITERS]\n");
		return 2;
	}
	if (wait) {
		signal(SIGUSR1, on_usr1);
		printf("ready pid=%d\n", (int)getpid());
		fflush(stdout);
		while (!go)
			pause();
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("ns_per_op %.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / ((double)iters * threads));
	return 0;
}
