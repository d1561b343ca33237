/* hostile_target: a process whose names are made to break whatever shows
 * them: threads named with a newline, a quote, a backslash, a terminal
 * escape and invalid UTF-8, and files in DIR named the same way, held open.
 *   hostile_target DIR SECONDS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* at most 15 bytes each: the kernel's thread name length */
static const char *const names[] = {
	"new\nline",        /* a second line in a terminal or a log */
	"quote\"back\\",    /* JSON's and C's escapes */
	"\x1b[31mred\x1b[0m", /* a terminal colour sequence */
	"bad\xff\xfeutf8",  /* not UTF-8 */
	"<b>&amp;<i>",     /* HTML (no slash: it names files too) */
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static void *hold(void *arg)
{
	pause();
	return arg;
}

int main(int argc, char **argv)
{
	char path[4096];
	pthread_t t;

	if (argc != 3) {
		fprintf(stderr, "usage: hostile_target DIR SECONDS\n");
		return 2;
	}
	for (size_t i = 0; i < NNAMES; i++) {
		if (pthread_create(&t, NULL, hold, NULL) || pthread_setname_np(t, names[i]))
			return 1;
		snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
		if (open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600) < 0)
			return 1;
	}
	printf("ready pid=%d\n", getpid());
	fflush(stdout);
	sleep((unsigned)atoi(argv[2]));
	return 0;
}
