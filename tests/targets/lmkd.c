/* lmkd: kills a process as Android's low memory killer daemon does (lmkd.cpp):
 * from a thread named lmkd_reaper0, pidfd_open, pidfd_send_signal(SIGKILL),
 * then process_mrelease to reap its memory at once.
 *   lmkd PID
 * Prints "lmkd killed PID (mrelease: ok|ERRNO)" or "lmkd: ..." on failure.
 * Built static too (phone.bats: a root with no libc). */
#define _GNU_SOURCE
#include <errno.h>
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
	prctl(PR_SET_NAME, (unsigned long)"lmkd_reaper0", 0, 0, 0);
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

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2 || (victim = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: lmkd PID\n");
		return 2;
	}
	prctl(PR_SET_NAME, (unsigned long)"lmkd", 0, 0, 0);
	if (pthread_create(&t, NULL, reaper_main, NULL))
		return 1;
	pthread_join(t, NULL);
	fflush(stdout);
	return status;
}
