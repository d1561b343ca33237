/* demo_leak: a service that leaks like a buggy Android app. Every second,
 * handler_thread_leak() starts 2 "HandlerThread"s, each preparing a looper
 * (an eventfd + epoll pair, looper_prepare) and never quitting, and
 * open_cache_files() opens 40 files it never closes.
 *   demo_leak [-t SECS] (default 120) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_stop(int s) { (void)s; stop = 1; }
static int threads_started, fds_opened, failed;

__attribute__((noinline)) static void looper_prepare(void)
{
	int wake = eventfd(0, EFD_CLOEXEC), ep = epoll_create1(EPOLL_CLOEXEC);

	if (wake >= 0 && ep >= 0)
		__atomic_add_fetch(&fds_opened, 2, __ATOMIC_RELAXED);
}

static void *handler_thread_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "HandlerThread");
	looper_prepare();
	for (;;)
		pause(); /* a looper that is never quit */
	return NULL;
}

__attribute__((noinline)) void handler_thread_leak(void)
{
	pthread_t t;

	for (int i = 0; i < 2; i++) {
		int e = pthread_create(&t, NULL, handler_thread_main, NULL);

		if (e) {
			if (!failed++)
				printf("pthread_create failed: %s (no more threads)\n", strerror(e));
			return;
		}
		threads_started++;
	}
}

__attribute__((noinline)) void open_cache_files(void)
{
	for (int i = 0; i < 40; i++) {
		if (open("/etc/hostname", O_RDONLY | O_CLOEXEC) < 0) {
			if (!failed++)
				printf("open failed: %s (fd table full)\n", strerror(errno));
			return;
		}
		__atomic_add_fetch(&fds_opened, 1, __ATOMIC_RELAXED);
	}
}

int main(int argc, char **argv)
{
	int secs = 120, c;
	time_t start = time(NULL);

	while ((c = getopt(argc, argv, "t:")) != -1) {
		if (c != 't' || (secs = atoi(optarg)) <= 0) {
			fprintf(stderr, "usage: demo_leak [-t SECS]\n");
			return 2;
		}
	}
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	printf("ready pid=%d\n", (int)getpid());
	while (!stop && time(NULL) - start < secs) {
		if (!failed) {
			handler_thread_leak();
			open_cache_files();
		}
		printf("t=%ld threads=%d fds_opened=%d\n", (long)(time(NULL) - start), threads_started,
		       __atomic_load_n(&fds_opened, __ATOMIC_RELAXED));
		fflush(stdout);
		sleep(1);
	}
	return 0;
}
