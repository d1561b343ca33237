/* fail_latency: how long a failing call takes to reach oomscope's timeline
 * on disk. Run under `oomscope run -o DIR`:
 *   fail_latency TIMELINE N
 * lowers RLIMIT_NOFILE to 64, fills the table, then N times: a failing open()
 * from a different call depth (a new stack each time, so the kernel sends
 * every one in full), and waits for the Nth "failure" record in TIMELINE.
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

int fail_at(int depth);
/* called through a volatile pointer: the recursion stays real, one frame a level */
static int (*volatile again)(int) = fail_at;

__attribute__((noinline)) int fail_at(int depth)
{
	int fd;

	if (depth > 0)
		return again(depth - 1) + 1;
	fd = open("/dev/null", O_RDONLY);
	return fd < 0 ? -errno : fd;
}

int main(int argc, char **argv)
{
	struct rlimit rl = {64, 64};
	int n = argc > 2 ? atoi(argv[2]) : 10, tl = argc > 1 ? open(argv[1], O_RDONLY | O_CLOEXEC) : -1;

	if (argc < 3 || tl < 0 || setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		fprintf(stderr, "usage: fail_latency TIMELINE N\n");
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
		fail_at(i + 1);
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
