/* The shim's environment, small files, fork and log (shim_libc.h). */
#define _GNU_SOURCE
#include "shim/libc/shim_libc.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shim/elfsym.h"

ssize_t shim_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = 0;
	return (ssize_t)got;
}

const char *shim_getenv(const char *name)
{
	static char env[16384];
	static ssize_t n = -1;
	size_t k = strlen(name);

	if (n < 0 && (n = shim_read_file("/proc/self/environ", env, sizeof(env))) < 0)
		return NULL;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(env + i) + 1)
		if (!strncmp(env + i, name, k) && env[i + k] == '=')
			return env + i + k + 1;
	return NULL;
}

static pid_t (*libc_fork)(void);
static int fork_looked_up;

pid_t shim_fork(void)
{
	static const char *const libcs[] = {"libc.so", "libc-", "libc.musl", "ld-musl"};

	if (!fork_looked_up) {
		for (size_t i = 0; i < sizeof(libcs) / sizeof(libcs[0]) && !libc_fork; i++) {
			struct elfsym_lib lib;

			if (elfsym_open_loaded(&lib, libcs[i]) == 0) {
				libc_fork = (pid_t(*)(void))elfsym_find(&lib, "fork", NULL);
				elfsym_close(&lib);
			}
		}
		fork_looked_up = 1;
	}
	char name[16] = "";
	pid_t p;

	/* the forking thread bears the dump child's name for the moment of the
	 * fork, so the child has it from its first instruction: a collector
	 * following the target's children lets it be (collect.bpf.c) */
	syscall(SYS_prctl, PR_GET_NAME, (unsigned long)name, 0, 0, 0);
	syscall(SYS_prctl, PR_SET_NAME, (unsigned long)SHIM_CHILD_NAME, 0, 0, 0);
	p = libc_fork ? libc_fork() : (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (p != 0)
		syscall(SYS_prctl, PR_SET_NAME, (unsigned long)name, 0, 0, 0);
	return p;
}

/* Android's log daemon: one datagram a line, as liblog writes it (a
 * packed header: log id, thread id, the time; then priority, tag, text). */
static void log_android(const char *msg)
{
	struct __attribute__((packed)) {
		uint8_t id;
		uint16_t tid;
		uint32_t sec, nsec;
	} head;
	struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "/dev/socket/logdw"};
	uint8_t prio = 5; /* ANDROID_LOG_WARN */
	static const char tag[] = "oomscope-shim";
	struct iovec v[4] = {{&head, sizeof(head)}, {&prio, 1}, {(void *)tag, sizeof(tag)}, {(void *)msg, strlen(msg) + 1}};
	struct msghdr m = {.msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = v, .msg_iovlen = 4};
	struct timespec ts = {0, 0};
	int s;

	/* sent without a stat() first: SELinux lets apps write to logdw
	 * (write_logd), not read its attributes; off Android the send fails */
	if ((s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	head.id = 0; /* LOG_ID_MAIN */
	head.tid = (uint16_t)gettid();
	head.sec = (uint32_t)ts.tv_sec;
	head.nsec = (uint32_t)ts.tv_nsec;
	sendmsg(s, &m, MSG_NOSIGNAL);
	close(s);
}

void shim_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	log_android(line);
	line[n++] = '\n';
	if (write(2, "oomscope-shim: ", 15) > 0 && write(2, line, (size_t)n) > 0) {
	}
}
