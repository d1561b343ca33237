/* lmkd: kills a process as Android's low memory killer daemon does (lmkd.cpp):
 * from a thread named lmkd_reaper0, pidfd_open, pidfd_send_signal(SIGKILL),
 * then process_mrelease to reap its memory at once.
 *   lmkd PID
 *   lmkd --psi MS [MIN_ADJ [SECS]]
 * The second waits, as lmkd does, on a PSI trigger on /proc/pressure/memory
 * (tasks stalled MS ms within a 1 s window; 2 s windows with the stall
 * doubled where the kernel allows no shorter: a process without
 * CAP_SYS_RESOURCE), then picks its victim as lmkd's find_and_kill_process
 * does: the highest oom_score_adj band first (at least MIN_ADJ, default 900:
 * cached apps), within it the heaviest, and kills it. At most SECS (60).
 * Prints "lmkd killed PID (mrelease: ok|ERRNO)" or "lmkd: ..." on failure;
 * with --psi first "lmkd: pressure: <the trigger>, picking from adj MIN_ADJ".
 * LMKD_THREAD names the killing thread another of lmkd's (lmkd_watchdog:
 * its watchdog's kill when the main loop hangs). Built static too
 * (phone.bats: a root with no libc). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

static int victim;
static int status = 1;

static void *reaper_main(void *arg)
{
	int pidfd;

	(void)arg;
	prctl(PR_SET_NAME, (unsigned long)(getenv("LMKD_THREAD") ? getenv("LMKD_THREAD") : "lmkd_reaper0"), 0, 0, 0);
	pidfd = (int)syscall(SYS_pidfd_open, victim, 0);
	if (pidfd < 0) {
		printf("lmkd: pidfd_open %d: %s\n", victim, strerror(errno));
		return NULL;
	}
	if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0)) {
		printf("lmkd: pidfd_send_signal %d: %s\n", victim, strerror(errno));
		return NULL;
	}
	/* EINVAL while the victim has not yet started exiting: lmkd retries */
	int e = 0;
	for (int i = 0; i < 100; i++) {
		e = syscall(SYS_process_mrelease, pidfd, 0) ? errno : 0;
		if (e != EINVAL)
			break;
		usleep(1000);
	}
	printf("lmkd killed %d (mrelease: %s)\n", victim, e ? strerror(e) : "ok");
	status = 0;
	return NULL;
}

static long read_long(const char *path, long dflt)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* lmkd's pick: the highest adj band at or over min_adj, its heaviest (RSS pages). */
static int pick_victim(int min_adj)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int best = 0, best_adj = min_adj - 1;
	long best_rss = -1;
	char path[64], buf[128];

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name), adj, fd;
		long rss = 0;
		ssize_t n;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", pid);
		adj = (int)read_long(path, -1001);
		if (adj < min_adj || adj < best_adj)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/statm", pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0) {
				buf[n] = 0;
				rss = strtol(strchr(buf, ' ') ? strchr(buf, ' ') + 1 : buf, NULL, 10);
			}
		}
		if (rss <= 0)
			continue; /* a kernel thread */
		if (adj > best_adj || rss > best_rss) {
			best = pid;
			best_adj = adj;
			best_rss = rss;
		}
	}
	closedir(d);
	return best;
}

/* Waits for memory pressure as lmkd does; 0 when it came. */
static int wait_pressure(long ms, int secs, char *desc, size_t len)
{
	static const long windows[] = {1000000, 2000000};
	struct pollfd p = {.events = POLLPRI};

	for (size_t i = 0; i < 2; i++) {
		long stall = ms * 1000 * (windows[i] / 1000000);
		int n;

		if ((p.fd = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
			printf("lmkd: /proc/pressure/memory: %s\n", strerror(errno));
			return -1;
		}
		n = snprintf(desc, len, "some %ld %ld", stall, windows[i]);
		if (write(p.fd, desc, (size_t)n + 1) >= 0)
			break; /* the kernel took it */
		close(p.fd);
		p.fd = -1;
	}
	if (p.fd < 0) {
		printf("lmkd: no PSI trigger: %s\n", strerror(errno));
		return -1;
	}
	printf("lmkd: pressure: %s\n", desc);
	fflush(stdout);
	for (;;) {
		int r = poll(&p, 1, secs * 1000);

		if (r < 0 && errno == EINTR)
			continue;
		close(p.fd);
		if (r > 0 && (p.revents & POLLPRI))
			return 0;
		printf("lmkd: no pressure within %d s\n", secs);
		return -1;
	}
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc >= 3 && !strcmp(argv[1], "--psi")) {
		long ms = atol(argv[2]);
		int min_adj = argc > 3 ? atoi(argv[3]) : 900, secs = argc > 4 ? atoi(argv[4]) : 60;
		char desc[64];

		prctl(PR_SET_NAME, (unsigned long)"lmkd", 0, 0, 0);
		if (ms <= 0 || ms > 1000 || secs <= 0) {
			fprintf(stderr, "usage: lmkd --psi MS [MIN_ADJ [SECS]]\n");
			return 2;
		}
		if (wait_pressure(ms, secs, desc, sizeof(desc)))
			return 1;
		if (!(victim = pick_victim(min_adj))) {
			printf("lmkd: pressure, but no process at adj %d or over\n", min_adj);
			return 1;
		}
	} else if (argc != 2 || (victim = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: lmkd PID | lmkd --psi MS [MIN_ADJ [SECS]]\n");
		return 2;
	}
	prctl(PR_SET_NAME, (unsigned long)"lmkd", 0, 0, 0);
	if (pthread_create(&t, NULL, reaper_main, NULL))
		return 1;
	pthread_join(t, NULL);
	fflush(stdout);
	return status;
}
