/* The system calls the shim (and the hprof library inside it) makes, under
 * their libc names and with libc's conventions (-1 and errno), but as raw
 * system calls: the shim links no libc. Hidden: the process's own libc is
 * never overridden. errno is per thread, found by thread id (no TLS). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shim/libc/sys.h"
#include "shim/libc/shim_libc.h"

/* errno without thread-local storage: a slot per thread id, hashed; two
 * threads of the shim sharing a slot at the same moment is harmless but for
 * the message of a failure that races another */
static int errno_slots[64];

int *__errno_location(void)
{
	return &errno_slots[(unsigned long)sys0(SYS_gettid) % 64];
}

static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0;
	va_end(ap);
	return (int)ret(sys4(SYS_openat, AT_FDCWD, path, flags | O_LARGEFILE, mode));
}

ssize_t read(int fd, void *buf, size_t n) { return ret(sys3(SYS_read, fd, buf, n)); }
ssize_t write(int fd, const void *buf, size_t n) { return ret(sys3(SYS_write, fd, buf, n)); }
ssize_t pread(int fd, void *buf, size_t n, off_t off) { return ret(sys4(SYS_pread64, fd, buf, n, off)); }
int close(int fd) { return (int)ret(sys1(SYS_close, fd)); }
int fsync(int fd) { return (int)ret(sys1(SYS_fsync, fd)); }
int fstat(int fd, struct stat *st) { return (int)ret(sys2(SYS_fstat, fd, st)); }
int stat(const char *path, struct stat *st) { return (int)ret(sys4(SYS_newfstatat, AT_FDCWD, path, st, 0)); }
int unlink(const char *path) { return (int)ret(sys3(SYS_unlinkat, AT_FDCWD, path, 0)); }
int rename(const char *a, const char *b) { return (int)ret(sys4(SYS_renameat, AT_FDCWD, a, AT_FDCWD, b)); }
int chmod(const char *path, mode_t m) { return (int)ret(sys3(SYS_fchmodat, AT_FDCWD, path, m)); }
int access(const char *path, int mode) { return (int)ret(sys3(SYS_faccessat, AT_FDCWD, path, mode)); }
int pipe2(int fds[2], int flags) { return (int)ret(sys2(SYS_pipe2, fds, flags)); }
int pipe(int fds[2]) { return pipe2(fds, 0); }
int dup(int fd) { return (int)ret(sys1(SYS_dup, fd)); }
pid_t getpid(void) { return (pid_t)sys0(SYS_getpid); }
pid_t gettid(void) { return (pid_t)sys0(SYS_gettid); }
pid_t setsid(void) { return (pid_t)ret(sys0(SYS_setsid)); }
uid_t geteuid(void) { return (uid_t)sys0(SYS_geteuid); }
int prctl(int op, ...)
{
	va_list ap;
	unsigned long a, b;

	va_start(ap, op);
	a = va_arg(ap, unsigned long);
	b = va_arg(ap, unsigned long);
	va_end(ap);
	return (int)ret(sys3(SYS_prctl, op, a, b));
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return (int)ret(sys3(SYS_fcntl, fd, cmd, arg));
}

long syscall(long n, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return ret(sys6(n, a[0], a[1], a[2], a[3], a[4], a[5]));
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = sys6(SYS_mmap, (long)addr, (long)len, prot, flags, fd, off);

	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return MAP_FAILED;
	}
	return (void *)r;
}

int munmap(void *addr, size_t len) { return (int)ret(sys2(SYS_munmap, addr, len)); }
int madvise(void *addr, size_t len, int advice) { return (int)ret(sys3(SYS_madvise, addr, len, advice)); }

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	long r = sys4(SYS_mremap, old, old_len, new_len, flags);

	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return MAP_FAILED;
	}
	return (void *)r;
}

int clock_gettime(clockid_t clk, struct timespec *ts) { return (int)ret(sys2(SYS_clock_gettime, clk, ts)); }

time_t time(time_t *t)
{
	struct timespec ts = {0, 0};

	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return (int)ret(sys4(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, req, rem));
}

int usleep(useconds_t us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};

	return nanosleep(&ts, NULL);
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};

	return (int)ret(sys5(SYS_ppoll, fds, n, timeout_ms < 0 ? NULL : &ts, NULL, 0));
}

int socket(int domain, int type, int proto) { return (int)ret(sys3(SYS_socket, domain, type, proto)); }
int bind(int s, const struct sockaddr *a, socklen_t l) { return (int)ret(sys3(SYS_bind, s, a, l)); }
int listen(int s, int backlog) { return (int)ret(sys2(SYS_listen, s, backlog)); }
int accept4(int s, struct sockaddr *a, socklen_t *l, int flags) { return (int)ret(sys4(SYS_accept4, s, a, l, flags)); }
int connect(int s, const struct sockaddr *a, socklen_t l) { return (int)ret(sys3(SYS_connect, s, a, l)); }
ssize_t recvmsg(int s, struct msghdr *m, int flags) { return ret(sys3(SYS_recvmsg, s, m, flags)); }
ssize_t sendmsg(int s, const struct msghdr *m, int flags) { return ret(sys3(SYS_sendmsg, s, m, flags)); }
ssize_t send(int s, const void *buf, size_t n, int flags) { return ret(sys6(SYS_sendto, s, (long)buf, (long)n, flags, 0, 0)); }
ssize_t sendto(int s, const void *buf, size_t n, int flags, const struct sockaddr *a, socklen_t l)
{
	return ret(sys6(SYS_sendto, s, (long)buf, (long)n, flags, (long)a, l));
}
int getsockopt(int s, int level, int name, void *v, socklen_t *l) { return (int)ret(sys5(SYS_getsockopt, s, level, name, v, l)); }

pid_t waitpid(pid_t pid, int *status, int options) { return (pid_t)ret(sys4(SYS_wait4, pid, status, options, NULL)); }

void _exit(int code)
{
	for (;;)
		sys1(SYS_exit_group, code);
}

unsigned alarm(unsigned secs)
{
	struct itimerval it = {{0, 0}, {secs, 0}}, old;

	if (sys3(SYS_setitimer, ITIMER_REAL, &it, &old) < 0)
		return 0;
	return (unsigned)old.it_value.tv_sec;
}

int sched_getcpu(void)
{
	unsigned cpu = 0;

	return sys3(SYS_getcpu, &cpu, NULL, NULL) < 0 ? -1 : (int)cpu;
}

int sched_setaffinity(pid_t pid, size_t n, const cpu_set_t *set) { return (int)ret(sys3(SYS_sched_setaffinity, pid, n, set)); }

/* The kernel's sigaction: no restorer is needed, as the shim only sets
 * SIG_DFL and SIG_IGN (a handler on x86_64 would need one). */
struct k_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

/* x86_64 returns from a handler through a restorer the caller gives;
 * aarch64's kernel uses the vDSO's */
#if defined(__x86_64__)
void shim_restore_rt(void);
__asm__(".text\n.hidden shim_restore_rt\n.type shim_restore_rt,@function\n"
	"shim_restore_rt:\n\tmov $15, %rax\n\tsyscall\n\thlt\n.size shim_restore_rt, .-shim_restore_rt\n");
#define SHIM_SA_RESTORER 0x04000000
#endif

int shim_signal_handler(int sig, void (*fn)(int, void *, void *))
{
	struct k_sigaction k = {0, 0, 0, 0}, old = {0, 0, 0, 0};
	long r = sys4(SYS_rt_sigaction, sig, NULL, &old, sizeof(k.mask));

	if (r < 0)
		return (int)r;
	if (old.handler != SIG_DFL && old.handler != SIG_IGN && (void *)old.handler != (void *)fn)
		return -EBUSY;
	k.handler = (void (*)(int))(void *)fn; /* the kernel calls it with three arguments (SA_SIGINFO) */
	k.flags = SA_SIGINFO | SA_RESTART;
#if defined(__x86_64__)
	k.flags |= SHIM_SA_RESTORER;
	k.restorer = shim_restore_rt;
#endif
	return (int)sys4(SYS_rt_sigaction, sig, &k, NULL, sizeof(k.mask));
}

int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	struct k_sigaction k = {0, 0, 0, 0};

	(void)old;
	if (!sa || (sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN)) {
		errno = EINVAL;
		return -1;
	}
	k.handler = sa->sa_handler;
	return (int)ret(sys4(SYS_rt_sigaction, sig, &k, NULL, sizeof(k.mask)));
}

/* sigset_t: only the kernel's 64 signals, in its first word */
int sigemptyset(sigset_t *s) { memset(s, 0, sizeof(*s)); return 0; }
int sigfillset(sigset_t *s) { memset(s, 0xff, sizeof(*s)); return 0; }
int sigaddset(sigset_t *s, int sig)
{
	((unsigned long *)s)[0] |= 1ul << (sig - 1);
	return 0;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	long r = sys4(SYS_rt_sigprocmask, how, set, old, 8);

	return r < 0 ? (int)-r : 0;
}
