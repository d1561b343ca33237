/* fail_latency: how long a failing call takes to reach oomscope's timeline
 * on disk. Run under `oomscope run -o DIR`:
 *   fail_latency TIMELINE N
 * lowers RLIMIT_NOFILE to 64, fills the table, then N times (N at most
 * SITES): a failing open() from a call site of its own (oomscope records a
 * call site's failures once each 5 s, so each must be new: another function,
 * and another stack, so the kernel sends every one in full), and waits for
 * the Nth "failure" record in TIMELINE.
 * Prints "latency_us" for each, from just before the call to the record
 * being readable; then exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* "failure" records in the timeline, read through fd (opened before the
 * fd table was filled: nothing can be opened after). */
static int records(int fd)
{
	static char buf[1 << 20];
	ssize_t got;
	int n = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return 0;
	while ((got = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[got] = 0; /* a record cut at the buffer's end is missed: the file stays small */
		for (char *p = buf; (p = strstr(p, "\"type\":\"failure\"")); p++)
			n++;
	}
	return n;
}

/* SITES functions, each a call site of its own */
#define SITE(k) \
	__attribute__((noinline)) static int fail_site_##k(void) \
	{ \
		int fd = open("/dev/null", O_RDONLY); \
		return fd < 0 ? -errno : fd; \
	}
#define SITES8(a) SITE(a##0) SITE(a##1) SITE(a##2) SITE(a##3) SITE(a##4) SITE(a##5) SITE(a##6) SITE(a##7)
SITES8(1) SITES8(2) SITES8(3) SITES8(4) SITES8(5) SITES8(6) SITES8(7) SITES8(8)
#define REF8(a) fail_site_##a##0, fail_site_##a##1, fail_site_##a##2, fail_site_##a##3, \
		fail_site_##a##4, fail_site_##a##5, fail_site_##a##6, fail_site_##a##7
/* called through a volatile table: no call is folded away */
static int (*volatile const sites[])(void) = {REF8(1), REF8(2), REF8(3), REF8(4), REF8(5), REF8(6), REF8(7), REF8(8)};
#define SITES ((int)(sizeof(sites) / sizeof(sites[0])))

int main(int argc, char **argv)
{
	struct rlimit rl = {64, 64};
	int n = argc > 2 ? atoi(argv[2]) : 10, tl = argc > 1 ? open(argv[1], O_RDONLY | O_CLOEXEC) : -1;

	if (argc < 3 || tl < 0 || n < 1 || n > SITES || setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		fprintf(stderr, "usage: fail_latency TIMELINE N (N: 1 to %d)\n", SITES);
		return 2;
	}
	while (open("/dev/null", O_RDONLY) >= 0)
		;
	usleep(300 * 1000); /* the fills' events are read */
	for (int i = 0; i < n; i++) {
		int before;
		double t0, t1;

		usleep(20 * 1000); /* past the kernel's per-stack refill (OOMS_FAIL_REFILL_NS) */
		before = records(tl);
		t0 = now_us();
		sites[i]();
		while (records(tl) <= before) {
			if (now_us() - t0 > 5e6) {
				printf("latency_us timeout\n");
				return 1;
			}
			usleep(100);
		}
		t1 = now_us();
		printf("latency_us %.0f\n", t1 - t0);
		fflush(stdout);
	}
	return 0;
}
