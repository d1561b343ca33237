/* thread_target: starts named threads from named functions.
 *   thread_target [-m THREADS] [-w] [-r PER_SEC] [-t SECS]
 * m "worker-pool" threads (start_worker_pool, routine worker_pool_main) and
 * max(1, m/4) "io-thread" threads (start_io_threads, routine io_thread_main). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go, stop;
static void on_usr1(int s) { (void)s; go = 1; }
static void on_stop(int s) { (void)s; stop = 1; }
static int park[2]; /* threads block reading this pipe until the process ends */
static int named;   /* threads that have taken their name: "ready" waits for all */

static void block_forever(void)
{
	char c;

	while (read(park[0], &c, 1) != 0)
		;
}

void *worker_pool_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker-pool");
	__atomic_add_fetch(&named, 1, __ATOMIC_SEQ_CST);
	block_forever();
	return NULL;
}

void *io_thread_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "io-thread");
	__atomic_add_fetch(&named, 1, __ATOMIC_SEQ_CST);
	block_forever();
	return NULL;
}

__attribute__((noinline)) int start_worker_pool(int m)
{
	pthread_t t;
	int made = 0;

	for (int i = 0; i < m; i++)
		made += pthread_create(&t, NULL, worker_pool_main, NULL) == 0;
	return made;
}

__attribute__((noinline)) int start_io_threads(int k)
{
	pthread_t t;
	int made = 0;

	for (int i = 0; i < k; i++)
		made += pthread_create(&t, NULL, io_thread_main, NULL) == 0;
	return made;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int m = 20, wait = 0, rate = 0, secs = 60, c, done = 0, workers = 0, io;
	time_t end;

	while ((c = getopt(argc, argv, "m:wr:t:")) != -1) {
		switch (c) {
		case 'm': m = atoi(optarg); break;
		case 'w': wait = 1; break;
		case 'r': rate = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: thread_target [-m THREADS] [-w] [-r PER_SEC] [-t SECS]\n");
			return 2;
		}
	}
	if (m < 0 || rate < 0 || secs <= 0) {
		fprintf(stderr, "thread_target: bad option value\n");
		return 2;
	}
	if (pipe(park) != 0)
		return 1;
	signal(SIGUSR1, on_usr1);
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	end = time(NULL) + secs;
	if (wait) {
		printf("waiting pid=%d\n", (int)getpid());
		fflush(stdout);
		while (!go && !stop && time(NULL) < end)
			sleep_ms(10);
	}
	if (rate) {
		printf("ready pid=%d\n", (int)getpid());
		fflush(stdout);
	}
	while (done < m && !stop && time(NULL) < end) {
		int step = rate ? (rate + 9) / 10 : m;

		if (step > m - done)
			step = m - done;
		workers += start_worker_pool(step);
		done += step;
		if (rate)
			sleep_ms(100);
	}
	io = start_io_threads(m / 4 > 0 ? m / 4 : 1);
	/* ready once every thread has its name (what a test reads at the end) */
	while (__atomic_load_n(&named, __ATOMIC_SEQ_CST) < workers + io && !stop && time(NULL) < end)
		sleep_ms(1);
	if (!rate)
		printf("ready pid=%d\n", (int)getpid());
	printf("threads worker-pool=%d io-thread=%d\n", workers, io);
	fflush(stdout);
	while (!stop && time(NULL) < end)
		sleep_ms(20);
	return 0; /* exit() ends the parked threads */
}
