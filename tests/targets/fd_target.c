/* fd_target: opens file descriptors of known kinds from named functions.
 *   fd_target [-n PAIRS] [-m] [-w] [-r PAIRS_PER_SEC] [-t SECS]
 * n eventfd+epoll pairs (open_looper_pairs; -m: two memfds each,
 * open_shared_memory, as Android's CursorWindows leak), and n/10 each of
 * regular files (open_data_files), socketpairs (open_socket_pairs) and
 * pipes (open_pipes). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go, stop;
static void on_usr1(int s) { (void)s; go = 1; }
static void on_stop(int s) { (void)s; stop = 1; }

__attribute__((noinline)) int open_looper_pairs(int n)
{
	int made = 0;

	for (int i = 0; i < n; i++)
		made += (eventfd(0, EFD_CLOEXEC) >= 0) + (epoll_create1(EPOLL_CLOEXEC) >= 0);
	return made;
}

__attribute__((noinline)) int open_shared_memory(int n)
{
	int made = 0;

	for (int i = 0; i < 2 * n; i++)
		made += memfd_create("CursorWindow", MFD_CLOEXEC) >= 0;
	return made;
}

__attribute__((noinline)) int open_data_files(int n)
{
	int made = 0;

	for (int i = 0; i < n; i++)
		made += open("/etc/hostname", O_RDONLY | O_CLOEXEC) >= 0;
	return made;
}

__attribute__((noinline)) int open_socket_pairs(int n)
{
	int sv[2], made = 0;

	for (int i = 0; i < n; i++)
		made += socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 ? 2 : 0;
	return made;
}

__attribute__((noinline)) int open_pipes(int n)
{
	int p[2], made = 0;

	for (int i = 0; i < n; i++)
		made += pipe2(p, O_CLOEXEC) == 0 ? 2 : 0;
	return made;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int n = 100, wait = 0, rate = 0, secs = 60, c, done = 0, memfds = 0;
	int ev = 0, files = 0, sp = 0, pp = 0;
	time_t end;

	while ((c = getopt(argc, argv, "n:mwr:t:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'w': wait = 1; break;
		case 'm': memfds = 1; break;
		case 'r': rate = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: fd_target [-n PAIRS] [-m] [-w] [-r PAIRS_PER_SEC] [-t SECS]\n");
			return 2;
		}
	}
	if (n < 0 || rate < 0 || secs <= 0) {
		fprintf(stderr, "fd_target: bad option value\n");
		return 2;
	}
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
	/* gradual: rate pairs per second in 10 steps a second */
	while (done < n && !stop && time(NULL) < end) {
		int step = rate ? (rate + 9) / 10 : n;

		if (step > n - done)
			step = n - done;
		ev += memfds ? open_shared_memory(step) : open_looper_pairs(step);
		done += step;
		if (rate)
			sleep_ms(100);
	}
	files = open_data_files(n / 10 > 0 ? n / 10 : (n > 0));
	sp = open_socket_pairs(n / 10 > 0 ? n / 10 : (n > 0));
	pp = open_pipes(n / 10 > 0 ? n / 10 : (n > 0));
	if (!rate)
		printf("ready pid=%d\n", (int)getpid());
	if (memfds)
		printf("opened memfd=%d file=%d socketpair=%d pipe=%d\n", ev, files, sp, pp);
	else
		printf("opened eventfd=%d epoll=%d file=%d socketpair=%d pipe=%d\n", ev / 2, ev - ev / 2, files, sp, pp);
	fflush(stdout);
	while (!stop && time(NULL) < end)
		sleep_ms(20);
	return 0;
}
