/* zygote: forks an app's process as Android's zygote does, for watch --app.
 *   zygote PKG [PADDING...]
 * Prints "zygote pid=N" and waits for SIGUSR1; then forks. The child
 * becomes the app: it names itself as ART does (the last 15 characters of
 * PKG), writes PKG over its command line (as Process.setArgV0: the
 * PADDING arguments leave room for it), then runs the app's code at once:
 * 30 files opened from app_open_cache(), 4 threads started from
 * app_start_workers(); it prints "app pid=N done ... held_ms=T" (T: from
 * before its rename to after it, the time a watch --app held it stopped
 * there) and lives until killed
 * (at most 120 s). The zygote waits for more. With APP_UID set, the app
 * runs as that uid and gid (an Android app's own, 10000 and up). Built
 * static too (phone.bats: a root with no libc). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go;
static void on_usr1(int s) { (void)s; go = 1; }

void *app_worker_main(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

__attribute__((noinline)) int app_open_cache(int n)
{
	int made = 0;

	for (int i = 0; i < n; i++)
		made += open("/dev/null", O_RDONLY) >= 0;
	return made;
}

__attribute__((noinline)) int app_start_workers(int n)
{
	pthread_t t;
	int made = 0;

	for (int i = 0; i < n; i++)
		made += pthread_create(&t, NULL, app_worker_main, NULL) == 0;
	return made;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The rename, and how long it took: a watch --app stops the process at it
 * until its probes are in (ms). */
static double become_app(const char *pkg_arg, char *args, size_t args_len)
{
	char pkg[256];
	size_t n;
	double t0;

	snprintf(pkg, sizeof(pkg), "%s", pkg_arg); /* it lives in the memory rewritten below */
	n = strlen(pkg);
	t0 = now_ms();
	prctl(PR_SET_NAME, (unsigned long)(n > 15 ? pkg + n - 15 : pkg), 0, 0, 0);
	t0 = now_ms() - t0;
	memset(args, 0, args_len);
	memcpy(args, pkg, n < args_len ? n : args_len - 1);
	return t0;
}

int main(int argc, char **argv)
{
	char *args = argv[0];
	size_t args_len;

	if (argc < 2) {
		fprintf(stderr, "usage: zygote PKG [PADDING...]\n");
		return 2;
	}
	args_len = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - args);
	signal(SIGUSR1, on_usr1);
	signal(SIGCHLD, SIG_IGN); /* children are reaped by the kernel, as zygote's */
	printf("zygote pid=%d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		pid_t p;

		while (!go)
			pause();
		go = 0;
		p = fork();
		if (p == 0) {
			int fds, threads;
			double held;

			const char *uid = getenv("APP_UID");

			if (uid && (setresgid((gid_t)atoi(uid), (gid_t)atoi(uid), (gid_t)atoi(uid)) ||
				    setresuid((uid_t)atoi(uid), (uid_t)atoi(uid), (uid_t)atoi(uid)))) {
				perror("zygote: the app's uid");
				_exit(1);
			}
			held = become_app(argv[1], args, args_len);
			fds = app_open_cache(30);
			threads = app_start_workers(4);
			printf("app pid=%d done fds=%d threads=%d held_ms=%.0f\n", (int)getpid(), fds, threads, held);
			fflush(stdout);
			sleep(120);
			_exit(0);
		}
	}
}
