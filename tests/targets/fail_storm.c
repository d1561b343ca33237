/* fail_storm: a storm of failing calls from six call sites, as a user's
 * terminal would see one (issue 32):
 *   fail_storm SECONDS [DIR]
 * lowers RLIMIT_NOFILE to 32 and fills the fd table (with DIR: with
 * numbered temp files DIR/storm-PID-N, each unlinked once open, as a
 * program's scratch files are), prints "storm pid=N",
 * then for SECONDS seconds calls each of six functions in turn, each
 * opening /dev/null and failing with EMFILE, as fast as it can; every 4 s
 * it closes three fds for 2 s (and waits meanwhile) and opens them
 * again (a count oscillating at its limit, as a worker's that frees a few
 * and retries; each low stretch outlasts a 1 s sampling interval).
 * Prints
 * "storm done failures=N" (every failing call made) and exits 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* six distinct call sites: six return addresses, six stacks */
#define SITE(n)                                                                    \
	__attribute__((noinline)) static int storm_site_##n(void)                  \
	{                                                                          \
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);                  \
		__asm__ volatile("" ::: "memory"); /* not a tail call */           \
		return fd;                                                         \
	}
SITE(1)
SITE(2)
SITE(3)
SITE(4)
SITE(5)
SITE(6)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int (*const sites[])(void) = {storm_site_1, storm_site_2, storm_site_3, storm_site_4, storm_site_5, storm_site_6};
	struct rlimit rl = {32, 32};
	double seconds = argc > 1 ? atof(argv[1]) : 0, end;
	unsigned long failures = 0;

	if (seconds <= 0) {
		fprintf(stderr, "usage: fail_storm SECONDS\n");
		return 2;
	}
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		perror("setrlimit");
		return 1;
	}
	printf("storm pid=%d\n", (int)getpid());
	fflush(stdout);
	for (int n = 0;; n++) {
		char path[4096];
		int fd;

		if (argc > 2) {
			snprintf(path, sizeof(path), "%s/storm-%d-%d", argv[2], (int)getpid(), n);
			fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (fd >= 0)
				unlink(path);
		} else {
			fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		}
		if (fd < 0) {
			failures += errno == EMFILE; /* the table is full: that open failed too */
			break;
		}
	}
	end = now_s() + seconds;
	double low_at = now_s() + 2, high_at = 0; /* 2 s full, 2 s with three fds free, ... */
	for (unsigned long round = 1; now_s() < end; round++) {
		if (high_at) { /* three free: it waits, as a worker that freed some does */
			usleep(10000);
			if (now_s() >= high_at) {
				for (int k = 0; k < 3; k++)
					if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0)
						failures++; /* not expected: counted with the rest */
				high_at = 0;
				low_at = now_s() + 2;
			}
			continue;
		}
		for (int i = 0; i < 6; i++) {
			int fd = sites[(i + round) % 6](); /* each site first in turn */

			if (fd >= 0)
				close(fd);
			else if (errno == EMFILE)
				failures++;
		}
		if (round % 64 == 0 && now_s() >= low_at) {
			close(29);
			close(30);
			close(31);
			high_at = now_s() + 2;
		}
	}
	printf("storm done failures=%lu\n", failures);
	return 0;
}
