/* bench_loop: a syscall-heavy loop for `make bench`.
 *   bench_loop open|thread|mmap|mix|syscall|touch ITERATIONS
 * (syscall: getppid, a call oomscope never follows: what any process pays
 * while oomscope watches another; touch: 1 MiB mapped, written page by
 * page and unmapped: page faults, which --fault-sample samples)
 * prints: MODE ITERATIONS ELAPSED_NS NS_PER_ITER */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *nothing(void *arg) { return arg; }

static void one_open(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

static void one_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, nothing, NULL) == 0)
		pthread_join(t, NULL);
}

static void one_mmap(void)
{
	char *p = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED) {
		p[0] = 1;
		munmap(p, 64 << 10);
	}
}

/* a page-touching loop: 1 MiB mapped, each page written (a page fault
 * each: what --fault-sample samples), unmapped */
static void one_touch(void)
{
	size_t len = 1 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (size_t o = 0; o < len; o += page)
		((volatile char *)p)[o] = 1;
	munmap(p, len);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n;
	uint64_t t0, dt;
	const char *mode;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: bench_loop open|thread|mmap|mix|syscall|touch ITERATIONS\n");
		return 2;
	}
	mode = argv[1];
	if (!strcmp(mode, "syscall") || !strcmp(mode, "touch")) {
		t0 = now_ns();
		for (long i = 0; i < n; i++) {
			if (mode[0] == 's')
				syscall(SYS_getppid);
			else
				one_touch();
		}
		dt = now_ns() - t0;
		printf("%s %ld %llu %.1f\n", mode, n, (unsigned long long)dt, (double)dt / n);
		return 0;
	}
	if (strcmp(mode, "open") && strcmp(mode, "thread") && strcmp(mode, "mmap") && strcmp(mode, "mix")) {
		fprintf(stderr, "bench_loop: unknown mode '%s'\n", mode);
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (mode[0] == 'o' || mode[1] == 'i')
			one_open();
		if (mode[0] == 't' || mode[1] == 'i')
			one_thread();
		if (mode[1] == 'm' || mode[1] == 'i')
			one_mmap();
	}
	dt = now_ns() - t0;
	printf("%s %ld %llu %.1f\n", mode, n, (unsigned long long)dt, (double)dt / n);
	return 0;
}
