/* death_target: dies of resource exhaustion, fast, from named functions.
 *   death_target fds      opens /dev/null from leak_fds() until open() fails
 *                         (EMFILE), then abort()s: all within ~50 ms
 *   death_target threads  starts sleeping threads from spawn_workers() until
 *                         pthread_create fails, then exits with code 3
 *   death_target memory   touches 1 MiB blocks from grow_cache(), one each 2 ms,
 *                         until the kernel's OOM killer ends it (run it in a
 *                         memory cgroup)
 * With -w it first waits for SIGUSR1 (a watcher attaches meanwhile); it
 * prints "ready pid=N" when waiting, then one line per phase on stdout. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

__attribute__((noinline)) int leak_fds(void)
{
	int n = 0;

	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	return n;
}

static void *sleeper(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "burst-worker");
	pause();
	return NULL;
}

__attribute__((noinline)) int spawn_workers(int *err)
{
	pthread_attr_t attr;
	pthread_t t;
	int n = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	while ((*err = pthread_create(&t, &attr, sleeper, NULL)) == 0)
		n++;
	return n;
}

__attribute__((noinline)) size_t grow_cache(void)
{
	size_t total = 0;

	for (;;) {
		char *p = malloc(1 << 20);

		if (!p)
			return total;
		memset(p, 0x5a, 1 << 20);
		total += 1 << 20;
		usleep(2000); /* ~500 MB/s at most: samples see it grow */
	}
}

static volatile sig_atomic_t go;
static void on_usr1(int s) { (void)s; go = 1; }

int main(int argc, char **argv)
{
	const char *mode;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "-w")) {
		sigset_t none;

		signal(SIGUSR1, on_usr1);
		printf("ready pid=%d\n", (int)getpid());
		sigemptyset(&none);
		while (!go)
			sigsuspend(&none);
		argv++, argc--;
	}
	mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "fds")) {
		int n = leak_fds();

		printf("opened %d fds, then %s\n", n, strerror(errno));
		abort();
	}
	if (!strcmp(mode, "threads")) {
		int err = 0, n = spawn_workers(&err);

		printf("started %d threads, then %s\n", n, strerror(err));
		exit(3);
	}
	if (!strcmp(mode, "memory")) {
		printf("grew %zu bytes\n", grow_cache());
		return 4;
	}
	fprintf(stderr, "usage: death_target [-w] fds|threads|memory\n");
	return 2;
}
