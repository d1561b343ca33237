/* What Android says of an app, and whether ART would take an agent (art_app.h). */
#define _GNU_SOURCE
#include "runtime/art_app.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util/run_cmd.h"

#define GETPROP_TIMEOUT_MS 5000
#define SDK_U 34 /* Android 14: JDWP for every app on userdebug only with the property */
#define PER_USER_RANGE 100000

/* The value of "[name]: [value]" in getprop's text, or NULL. */
static const char *prop(const char *text, const char *name, char *val, size_t len)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v, *end;

		if (p[0] != '[' || strncmp(p + 1, name, n) || strncmp(p + 1 + n, "]: [", 4))
			continue;
		v = p + n + 5;
		end = strchr(v, ']');
		if (!end || memchr(v, '\n', (size_t)(end - v)))
			return NULL;
		snprintf(val, len, "%.*s", (int)(end - v), v);
		return val;
	}
	return NULL;
}

void art_build_parse(const char *text, struct art_build *b)
{
	char v[92];

	memset(b, 0, sizeof(*b));
	if (prop(text, "ro.build.version.sdk", v, sizeof(v)))
		b->sdk = atoi(v);
	if (prop(text, "ro.build.type", v, sizeof(v)))
		snprintf(b->type, sizeof(b->type), "%.15s", v);
	b->debuggable = prop(text, "ro.debuggable", v, sizeof(v)) && !strcmp(v, "1");
	b->jdwp_all = prop(text, "persist.debug.dalvik.vm.jdwp.enabled", v, sizeof(v)) && !strcmp(v, "1");
}

int art_build_read(struct art_build *b, struct ooms_err *err)
{
	static char out[256 * 1024]; /* every property of a phone: about 60 KB */
	char *argv[] = {"getprop", NULL};
	int st = 0, e = run_capture(argv, out, sizeof(out), GETPROP_TIMEOUT_MS, &st);

	memset(b, 0, sizeof(*b));
	if (e == -ENOENT)
		return ooms_err_set(err, e, "no `getprop` on PATH to read the build's properties");
	if (e)
		return ooms_err_set(err, e, "`getprop`: %s", strerror(-e));
	art_build_parse(out, b);
	if (!b->sdk || !b->type[0])
		return ooms_err_set(err, -ENODATA, "`getprop` did not say ro.build.version.sdk and ro.build.type%s",
				    WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "" : " (it failed)");
	return 0;
}

/* One packages.list line: "name uid debuggable data_dir seinfo gids ...". */
static int pkg_line(const char *line, struct art_pkg *p)
{
	char name[256], dir[512];
	unsigned uid;
	int dbg;

	if (sscanf(line, "%255s %u %d %511s", name, &uid, &dbg, dir) != 4)
		return -1;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->appid = uid;
	p->debuggable = dbg != 0;
	snprintf(p->data_dir, sizeof(p->data_dir), "%s", dir);
	return 0;
}

int art_pkg_find(const char *list, const char *procname, uid_t uid, struct art_pkg *out)
{
	unsigned appid = (unsigned)uid % PER_USER_RANGE;
	size_t base = strcspn(procname, ":");
	int have = 0;

	for (const char *p = list; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		struct art_pkg c;

		if (pkg_line(p, &c) || c.appid != appid)
			continue;
		if (strlen(c.name) == base && !strncmp(c.name, procname, base)) {
			*out = c; /* the process's own package ("pkg" or "pkg:proc") */
			return 0;
		}
		if (!have) {
			*out = c; /* the first of the app id's (a shared uid's, or a process named freely) */
			have = 1;
		}
	}
	return have ? 0 : -ENOENT;
}

/* A whole small file, NUL-ended; NULL when unreadable (errno set). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	size_t cap = 1 << 16, n = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (n + 1 < cap)
			break;
		if (cap >= (64u << 20)) { /* not a packages.list */
			free(buf);
			buf = NULL;
			errno = EFBIG;
			break;
		}
		char *bigger = realloc(buf, cap *= 2);

		if (!bigger) {
			free(buf);
			buf = NULL;
		}
		buf = bigger;
	}
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

int art_pkg_of(pid_t pid, const char *procname, uid_t uid, struct art_pkg *out, struct ooms_err *err)
{
	char path[96];
	char *list;
	int e;

	snprintf(path, sizeof(path), "/proc/%d/root/data/system/packages.list", (int)pid);
	list = slurp(path);
	if (!list)
		list = slurp("/data/system/packages.list");
	if (!list)
		return ooms_err_set(err, -ENOENT, "/data/system/packages.list cannot be read (%s)", strerror(errno));
	e = art_pkg_find(list, procname, uid, out);
	free(list);
	if (e)
		return ooms_err_set(err, e, "/data/system/packages.list has no package of uid %u (app id %u)",
				    (unsigned)uid, (unsigned)uid % PER_USER_RANGE);
	return 0;
}

int art_agent_allowed(const struct art_build *b, int app_debuggable, int dumpable, const char *pkg, int *v12,
		      char *why, size_t len)
{
	int eng = !strcmp(b->type, "eng");

	*v12 = 0;
	if (app_debuggable == 1) { /* zygote gives a debuggable app JDWP on every build */
		*v12 = 1;
		return 1;
	}
	if (!b->debuggable) {
		snprintf(why, len,
			 "%s is not debuggable and this is a %s build (ro.debuggable 0), where ART takes agents only in "
			 "debuggable apps: build the app with android:debuggable, or use a userdebug or eng build",
			 pkg, b->type[0] ? b->type : "user");
		return 0;
	}
	if (b->sdk >= SDK_U && !eng && !b->jdwp_all) {
		snprintf(why, len,
			 "%s is not debuggable, and on Android 14 and later (SDK %d) a %s build gives release apps JDWP, "
			 "which ART's agents need, only with persist.debug.dalvik.vm.jdwp.enabled set at boot: "
			 "`adb shell setprop persist.debug.dalvik.vm.jdwp.enabled 1`, reboot, start the app again; or "
			 "build it with android:debuggable",
			 pkg, b->sdk, b->type[0] ? b->type : "userdebug");
		return 0;
	}
	if (dumpable == 0) {
		snprintf(why, len,
			 "%s's process is not debuggable (not dumpable: its zygote gave it no JDWP, though the properties "
			 "would now)%s: reboot the device and start the app again",
			 pkg, b->sdk >= SDK_U && !eng ? "; persist.debug.dalvik.vm.jdwp.enabled was set after the last boot?"
						     : "");
		return 0;
	}
	return 1;
}

int art_proc_dumpable(pid_t pid, uid_t uid)
{
	char path[40];
	struct stat st;

	if (uid == 0)
		return -1;
	/* a file, not the directory: /proc/PID itself keeps the task's owner
	 * (procps stats it for the uid) */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (stat(path, &st) != 0)
		return -1;
	return st.st_uid == uid;
}
