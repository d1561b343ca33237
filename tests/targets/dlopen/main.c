/* dlopen_target LIB N: dlopens LIB, says "loaded pid=PID", waits for
 * SIGUSR1, calls LIB's evil_open_fds(N), says "opened N", then waits for a
 * signal to end it (no exit handlers run: the library's file may have been
 * cut short meanwhile). */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *h = argc == 3 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*f)(int) = h ? (int (*)(int))dlsym(h, "evil_open_fds") : NULL;
	sigset_t set;
	int sig;

	if (!f) {
		fprintf(stderr, "usage: dlopen_target LIB N (%s)\n", h ? "no evil_open_fds" : dlerror());
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("loaded pid=%d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	printf("opened %d\n", f(atoi(argv[2])));
	fflush(stdout);
	for (;;)
		pause();
}
