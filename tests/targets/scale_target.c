/* scale_target: many fds and many threads, from known call sites, for the
 * scale test (tests/bats/scale.bats).
 *   scale_target [-n FDS] [-m THREADS] [-s STACK_KIB] [-t SECS]
 * Opens FDS descriptors in three groups, each from its own function:
 *   open_null_dups  FDS/2: /dev/null opened once, then dup()ed
 *   open_eventfds   FDS/4: eventfd2
 *   open_pipes      the rest (rounded down to even): pipe2 pairs
 * and starts THREADS threads with STACK_KIB stacks (64 by default), in two
 * groups: THREADS/10 "scale-io" (start_io_threads, io_main), the rest
 * "scale-worker" (start_workers, worker_main). They block until the process
 * exits. Raises its soft RLIMIT_NOFILE to the hard limit first. Prints
 *   ready pid=P dups=A eventfds=B pipefds=C workers=W io=I
 * when everything is made, then waits for SIGTERM/SIGINT (or SECS). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_stop(int s) { (void)s; stop = 1; }
static int never; /* threads sleep on this futex word, which nobody wakes */
static int named; /* threads that have taken their name: "ready" waits for all */

static void park(void)
{
	for (;;)
		syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

void *worker_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "scale-worker");
	__atomic_add_fetch(&named, 1, __ATOMIC_SEQ_CST);
	park();
	return NULL;
}

void *io_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "scale-io");
	__atomic_add_fetch(&named, 1, __ATOMIC_SEQ_CST);
	park();
	return NULL;
}

__attribute__((noinline)) int open_null_dups(int n)
{
	int made = 0, base;

	if (n <= 0)
		return 0;
	base = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (base < 0)
		return 0;
	made = 1;
	for (int i = 1; i < n; i++)
		made += dup(base) >= 0;
	return made;
}

__attribute__((noinline)) int open_eventfds(int n)
{
	int made = 0;

	for (int i = 0; i < n; i++)
		made += eventfd(0, EFD_CLOEXEC) >= 0;
	return made;
}

__attribute__((noinline)) int open_pipes(int nfds)
{
	int p[2], made = 0;

	for (int i = 0; i < nfds / 2; i++)
		made += pipe2(p, O_CLOEXEC) == 0 ? 2 : 0;
	return made;
}

static int start_threads(int m, size_t stack, void *(*fn)(void *))
{
	pthread_attr_t a;
	pthread_t t;
	int made = 0;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, stack);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < m; i++)
		made += pthread_create(&t, &a, fn, NULL) == 0;
	pthread_attr_destroy(&a);
	return made;
}

__attribute__((noinline)) int start_workers(int m, size_t stack)
{
	return start_threads(m, stack, worker_main);
}

__attribute__((noinline)) int start_io_threads(int m, size_t stack)
{
	return start_threads(m, stack, io_main);
}

int main(int argc, char **argv)
{
	int n = 1000, m = 100, kib = 64, secs = 600, c;
	int dups, evs, pipes, workers, io;
	struct rlimit rl;
	sigset_t all, old;
	time_t end;

	while ((c = getopt(argc, argv, "n:m:s:t:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'm': m = atoi(optarg); break;
		case 's': kib = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: scale_target [-n FDS] [-m THREADS] [-s STACK_KIB] [-t SECS]\n");
			return 2;
		}
	}
	if (n < 0 || m < 0 || kib < 16 || secs <= 0) {
		fprintf(stderr, "scale_target: bad option value\n");
		return 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	/* the threads block every signal: SIGTERM reaches the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);

	dups = open_null_dups(n / 2);
	evs = open_eventfds(n / 4);
	pipes = open_pipes(n - n / 2 - n / 4);
	workers = start_workers(m - m / 10, (size_t)kib << 10);
	io = start_io_threads(m / 10, (size_t)kib << 10);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* ready once every thread has its name (what the test reads at the end) */
	end = time(NULL) + secs;
	while (__atomic_load_n(&named, __ATOMIC_SEQ_CST) < workers + io && time(NULL) < end) {
		struct timespec ts = {0, 1000 * 1000};

		nanosleep(&ts, NULL);
	}

	printf("ready pid=%d dups=%d eventfds=%d pipefds=%d workers=%d io=%d\n", (int)getpid(), dups, evs, pipes,
	       workers, io);
	fflush(stdout);
	end = time(NULL) + secs;
	while (!stop && time(NULL) < end) {
		struct timespec ts = {0, 20 * 1000 * 1000};

		nanosleep(&ts, NULL);
	}
	/* exit_group ends every thread; 500k fds close with the process */
	return 0;
}
