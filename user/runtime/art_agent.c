/* The shim into an Android app as it ships (art_agent.h). */
#define _GNU_SOURCE
#include "runtime/art_agent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "proc/freezer.h"
#include "proc/procfs.h"
#include "runtime/art_app.h"
#include "runtime/shim_client.h"
#include "shim/art_syms.h"
#include "shim/proto.h"
#include "sym/symbolize.h"
#include "util/clock.h"
#include "util/run_cmd.h"

#define SHIM_NAME "liboomscope_shim.so"
#define SELINUX_XATTR "security.selinux"
#define ATTACH_TIMEOUT_MS 20000

int ooms_art_shim_options(pid_t pid, const char *libart, char *out, size_t len, int *found, struct ooms_err *err)
{
	uint64_t values[ART_SYM_MAX];
	char path[1024];
	int e, n = 0;

	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, libart);
	e = ooms_sym_elf_values(path, (const char *const *)art_sym_names, ART_SYM_MAX, values);
	if (e)
		return ooms_err_set(err, e, "reading %s's symbols: %s", libart, strerror(-e));
	for (int i = 0; i < ART_SYM_MAX; i++)
		n += values[i] != 0;
	if (found)
		*found = n;
	if (art_syms_options_write(values, out, len) < 0)
		return ooms_err_set(err, -ENOSPC, "the shim's options for %s do not fit in %zu bytes", libart, len);
	return 0;
}

/* The process's name: its command line's first word (an app's is its
 * process name, "com.foo", "com.foo:remote", or any name its manifest
 * gives, "com.google.process.gapps"). */
static int process_name(pid_t pid, char *name, size_t len)
{
	char cmd[512];
	size_t n;

	if (proc_cmdline(pid, cmd, sizeof(cmd)) != 0)
		return -ESRCH;
	n = strcspn(cmd, " ");
	if (!n || n >= len || memchr(cmd, '/', n))
		return -EINVAL;
	memcpy(name, cmd, n);
	name[n] = 0;
	return 0;
}

int ooms_art_app_read(pid_t pid, struct ooms_art_app *app, struct ooms_err *err)
{
	struct proc_status ps;
	struct art_pkg pkg;
	struct ooms_err why = {0};
	int e;

	memset(app, 0, sizeof(*app));
	app->debuggable = -1;
	/* the real uid (an app that is not dumpable has its /proc/PID owned by root) */
	if ((e = proc_read_status(pid, &ps)) || ps.uid < 0)
		return ooms_err_set(err, e ? e : -ENODATA, "reading PID %d's uid: %s", (int)pid, strerror(e ? -e : ENODATA));
	app->uid = (uid_t)ps.uid;
	if (process_name(pid, app->process, sizeof(app->process)))
		return ooms_err_set(err, -EINVAL, "PID %d's command line names no app package: is it an app's process?",
				    (int)pid);
	if (art_pkg_of(pid, app->process, app->uid, &pkg, &why) == 0) {
		snprintf(app->package, sizeof(app->package), "%s", pkg.name);
		app->debuggable = pkg.debuggable;
		app->listed = 1;
	} else { /* no list to read: the process's name up to its ':' */
		snprintf(app->package, sizeof(app->package), "%.*s", (int)strcspn(app->process, ":"), app->process);
		snprintf(app->unlisted, sizeof(app->unlisted), "%.199s", why.msg);
	}
	app->dumpable = art_proc_dumpable(pid, app->uid);
	return 0;
}

int ooms_art_app_check(pid_t pid, struct ooms_art_app *app, struct ooms_err *err)
{
	char why[400];
	struct ooms_err e2 = {0};
	int e;

	if ((e = ooms_art_app_read(pid, app, err)))
		return e;
	if (app->debuggable != 1 && (e = art_build_read(&app->build, &e2)))
		return ooms_err_set(err, -EPERM,
				    "not attached: whether ART in PID %d (%s) takes an agent could not be told (%s), and an "
				    "agent it refuses kills the app on Android 14 and later",
				    (int)pid, app->package, e2.msg);
	if (!art_agent_allowed(&app->build, app->debuggable, app->dumpable, app->package, &app->v12, why, sizeof(why)))
		return ooms_err_set(err, -EPERM, "not attached (ART would refuse the agent, which kills the app): %s%s%s",
				    why, app->listed ? "" : "; its debuggable flag unread: ", app->unlisted);
	return 0;
}

/* The app's code_cache, opened as a directory the app owns: not a link
 * (an app could point its own code_cache at a folder of the system's, for
 * root to write into), so every step after works in what was checked.
 * dir gets its path as the app sees it. The fd, or -errno. */
static int open_code_cache(pid_t pid, const struct ooms_art_install *in, char *dir, size_t len, struct stat *st)
{
	char there[512];
	int dfd = -1;

	/* /data/user/N/PKG (N: the Android user, uid / 100000); /data/data/PKG
	 * for user 0 on older builds */
	for (int i = 0; i < 2 && dfd < 0; i++) {
		if (i)
			snprintf(dir, len, "/data/data/%s/code_cache", in->package);
		else
			snprintf(dir, len, "/data/user/%u/%s/code_cache", (unsigned)(in->uid / 100000), in->package);
		snprintf(there, sizeof(there), "/proc/%d/root%s", (int)pid, dir);
		dfd = open(there, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0 && (errno == ELOOP || errno == ENOTDIR))
			return -EPERM; /* there, but a link or not a directory */
		if (in->uid / 100000 != 0)
			break;
	}
	if (dfd < 0)
		return -ENOENT;
	if (fstat(dfd, st) != 0 || st->st_uid != in->uid) {
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

int ooms_art_install_shim(pid_t pid, const struct ooms_art_app *app, const char *shim_file,
			  struct ooms_art_install *out, struct ooms_err *err)
{
	char dir[400], tmp[64], label[256];
	struct stat st, src_st;
	off_t off = 0;
	ssize_t lablen;
	int src, fd, dfd, e = 0;

	memset(out, 0, sizeof(*out));
	out->uid = app->uid;
	snprintf(out->package, sizeof(out->package), "%s", app->package);
	dfd = open_code_cache(pid, out, dir, sizeof(dir), &st);
	if (dfd == -EPERM)
		return ooms_err_set(err, -EPERM, "%s in PID %d's namespace is not a directory of the app's own (uid %u): "
				    "not written", dir, (int)pid, (unsigned)out->uid);
	if (dfd < 0)
		return ooms_err_set(err, -ENOENT, "%s is not there in PID %d's namespace: is %s installed for Android user %u?",
				    dir, (int)pid, out->package, (unsigned)(out->uid / 100000));
	src = open(shim_file, O_RDONLY | O_CLOEXEC);
	if (src < 0) {
		e = -errno;
		close(dfd);
		return ooms_err_set(err, e, "%s: %s", shim_file, strerror(-e));
	}
	snprintf(tmp, sizeof(tmp), ".%s.%d", SHIM_NAME, (int)getpid());
	unlinkat(dfd, tmp, 0); /* a leftover of an earlier run of this PID */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0500);
	if (fd < 0)
		e = -errno;
	else if (fstat(src, &src_st) != 0 || sendfile(fd, src, &off, (size_t)src_st.st_size) != src_st.st_size)
		e = -EIO;
	close(src);
	/* the app's own file, as `run-as PKG cp` would have made it */
	if (!e && fchown(fd, out->uid, st.st_gid) != 0)
		e = -errno;
	if (!e && fchmod(fd, 0500) != 0)
		e = -errno;
	/* the directory's label (app_data_file with the app's categories): a file
	 * root makes gets root's level, which the app may not map executable */
	lablen = e ? -1 : fgetxattr(dfd, SELINUX_XATTR, label, sizeof(label));
	if (lablen > 0) {
		if (fsetxattr(fd, SELINUX_XATTR, label, (size_t)lablen, 0) != 0)
			e = -errno;
		else
			out->labelled = 1;
	}
	if (fd >= 0 && close(fd) != 0 && !e)
		e = -errno;
	if (!e && renameat(dfd, tmp, dfd, SHIM_NAME) != 0)
		e = -errno;
	if (e)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	if (e)
		return ooms_err_set(err, e, "putting the shim into %s: %s", dir, strerror(-e));
	snprintf(out->path, sizeof(out->path), "%s/%s", dir, SHIM_NAME);
	return 0;
}

/* The activity manager's words, one line: its exception's, else the first. */
static void one_line(const char *text, char *line, size_t len)
{
	const char *p = strstr(text, "Exception:");
	size_t n;

	if (p)
		while (p > text && p[-1] != '\n' && p[-1] != ' ')
			p--;
	else
		p = text + strspn(text, "\n ");
	n = strcspn(p, "\n");
	snprintf(line, len, "%.*s", (int)n, p);
}

int ooms_art_attach_agent(pid_t pid, const char *path, const char *options, struct ooms_err *err)
{
	char pidtext[16], *agent, said[4096], line[400];
	int e, status = 0;

	snprintf(pidtext, sizeof(pidtext), "%d", (int)pid);
	if (asprintf(&agent, "%s%s%s", path, options && *options ? "=" : "", options ? options : "") < 0)
		return ooms_err_set(err, -ENOMEM, "out of memory");
	{
		char *argv[] = {"cmd", "activity", "attach-agent", pidtext, agent, NULL};

		e = run_capture(argv, said, sizeof(said), ATTACH_TIMEOUT_MS, &status);
	}
	free(agent);
	if (e == -ENOENT)
		return ooms_err_set(err, -ENOENT, "no `cmd` on PATH: attach-agent is Android's activity manager's");
	if (e == -ETIMEDOUT)
		return ooms_err_set(err, -ETIMEDOUT, "`cmd activity attach-agent %d` did not answer in %d s", (int)pid,
				    ATTACH_TIMEOUT_MS / 1000);
	if (e)
		return ooms_err_set(err, e, "running cmd: %s", strerror(-e));
	one_line(said, line, sizeof(line));
	if (strstr(said, "SecurityException") || strstr(said, "not debuggable"))
		return ooms_err_set(err, -EPERM,
				    "the activity manager refused the agent (%s): on a user build only a debuggable app "
				    "takes one; any app does on a userdebug or eng build", line);
	if (strstr(said, "Exception") || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ooms_err_set(err, -EIO, "`cmd activity attach-agent %d` failed%s%s", (int)pid, line[0] ? ": " : "",
				    line);
	return 0;
}

void ooms_art_loader_init(struct ooms_art_loader *l, pid_t pid, const char *libart, const char *shim_file,
			  int64_t now_ns)
{
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	l->libart = libart;
	l->shim_file = shim_file;
	l->give_up_ns = now_ns + (int64_t)ART_SHIM_TRY_MS * 1000000;
	l->state = ART_LOAD_TRYING;
}

/* Whether the shim answers; the JVMTI version it got kept ("1.2", or "art":
 * ART's kArtTiVersion, what a runtime that is not debuggable gives a late agent). */
static int answers(struct ooms_art_loader *l, int timeout_ms)
{
	char line[256], *v;

	if (shim_client_ask(l->pid, SHIM_REQ_PING, line, sizeof(line), timeout_ms) != 0)
		return 0;
	if ((v = strstr(line, " jvmti=")))
		snprintf(l->jvmti, sizeof(l->jvmti), "%.*s", (int)strcspn(v + 7, " \n"), v + 7);
	return 1;
}

/* The load ends in state st: a frozen app thawed for it is frozen again. */
static enum ooms_art_load_state load_end(struct ooms_art_loader *l, enum ooms_art_load_state st)
{
	if (l->thawed)
		l->refrozen = ooms_refreeze(&l->thaw, l->refreeze_note, sizeof(l->refreeze_note)) == 1;
	return l->state = st;
}

enum ooms_art_load_state ooms_art_loader_step(struct ooms_art_loader *l, int64_t now_ns, struct ooms_err *err)
{
	char options[4096];
	int found = 0, e;

	switch (l->state) {
	case ART_LOAD_TRYING:
		/* a frozen app (cached) runs nothing, its main thread that would
		 * load the agent neither: thawed until the load ends */
		if (!l->thaw_tried) {
			l->thaw_tried = 1;
			if ((e = ooms_thaw(l->pid, &l->thaw, err)) < 0)
				return load_end(l, ART_LOAD_FAILED);
			l->thawed = e == 1;
		}
		if (answers(l, 200)) /* loaded already (at launch, by hand, by an earlier watch) */
			return load_end(l, ART_LOAD_DONE);
		if (!l->shim_file) {
			ooms_err_set(err, -ENOENT, "the shim library is not beside oomscope (set OOMSCOPE_SHIM to its path)");
			return load_end(l, ART_LOAD_FAILED);
		}
		/* once: whether ART would take it (one it refuses kills the app) */
		if (!l->tries && ooms_art_app_check(l->pid, &l->app, err))
			return load_end(l, ART_LOAD_FAILED);
		if ((e = ooms_art_shim_options(l->pid, l->libart, options, sizeof(options), &found, err)) ||
		    (e = ooms_art_install_shim(l->pid, &l->app, l->shim_file, &l->in, err)))
			return load_end(l, ART_LOAD_FAILED);
		l->tries++;
		e = ooms_art_attach_agent(l->pid, l->in.path, options, err);
		if (!e) {
			l->answer_by_ns = now_ns + (int64_t)ART_SHIM_WAIT_MS * 1000000;
			return l->state = ART_LOAD_WAITING;
		}
		/* refused, or no activity manager: trying again changes nothing */
		if (e == -EPERM || e == -ENOENT || now_ns >= l->give_up_ns)
			return load_end(l, ART_LOAD_FAILED);
		return l->state;
	case ART_LOAD_WAITING:
		if (answers(l, 200))
			return load_end(l, ART_LOAD_DONE);
		if (now_ns >= l->answer_by_ns) {
			ooms_err_set(err, -ETIMEDOUT,
				     "the shim, put at %s and attached with `cmd activity attach-agent`, did not answer in "
				     "%d s (the app's log says why: `logcat -s oomscope-shim`)",
				     l->in.path, ART_SHIM_WAIT_MS / 1000);
			return load_end(l, ART_LOAD_FAILED);
		}
		return l->state;
	default:
		return l->state;
	}
}
