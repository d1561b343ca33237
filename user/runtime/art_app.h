/* What Android says of an app before oomscope asks anything of its runtime:
 * the device's build (getprop), the app's package and its debuggable flag
 * (/data/system/packages.list), and from them whether ART in that app would
 * take an agent.
 *
 * Why ask first: `cmd activity attach-agent` answers 0 as soon as the
 * activity manager has passed the request on (the call into the app is
 * one-way), and the app then calls VMDebug.attachAgent on its main thread.
 * Where ART does not allow JDWP in the process it throws
 * SecurityException("Can't attach agent, process is not debuggable."), and
 * ActivityThread's attemptAttachAgent catches only IOException: the app
 * dies. ART allows it (Dbg::IsJdwpAllowed) when zygote started the process
 * with DEBUG_ENABLE_JDWP: for a debuggable app always; for any app on
 * Android 12 and 13 when ro.debuggable is 1 (userdebug, eng); on Android 14
 * and later on eng builds, and on userdebug builds only when
 * persist.debug.dalvik.vm.jdwp.enabled was 1 when zygote started (set, then
 * reboot). Zygote turns ptrace on with JDWP (the process is dumpable) in
 * each of these, so a process that is not dumpable has no JDWP whatever the
 * properties say now (a property set since the last boot). */
#ifndef OOMSCOPE_RUNTIME_ART_APP_H
#define OOMSCOPE_RUNTIME_ART_APP_H

#include <stddef.h>
#include <sys/types.h>
#include "util/err.h"

/* The build, from getprop's "[name]: [value]" lines. */
struct art_build {
	int sdk;          /* ro.build.version.sdk; 0 when not said */
	char type[16];    /* ro.build.type: user, userdebug, eng */
	int debuggable;   /* ro.debuggable is 1 */
	int jdwp_all;     /* persist.debug.dalvik.vm.jdwp.enabled is 1 */
};

/* An installed package, from its packages.list line. */
struct art_pkg {
	char name[256];
	unsigned appid;     /* the list's uid: the app's uid for Android user 0 */
	int debuggable;     /* its flag: android:debuggable */
	char data_dir[512]; /* user 0's data directory */
};

/* getprop's output (every property, or those named) into b. */
void art_build_parse(const char *text, struct art_build *b);
/* Runs `getprop` (on PATH: Android's /system/bin/getprop). 0, or -errno
 * with err set (no getprop: not Android, or a PATH without it). */
int art_build_read(struct art_build *b, struct ooms_err *err);

/* The package of a process named procname (its command line's first word)
 * with uid uid, in a packages.list's text: the name up to its ':' when the
 * list has it under the process's app id; else the list's packages of that
 * app id (one, or the first of those sharing it: any of them is the app's
 * own); a process name is not a package name (com.google.process.gapps
 * runs com.google.android.gms's code). 0, or -ENOENT. */
int art_pkg_find(const char *list, const char *procname, uid_t uid, struct art_pkg *out);
/* The same from process pid's packages.list (through /proc/PID/root, else
 * this namespace's); -ENOENT when no list can be read (err says why) or it
 * has no package of that uid. */
int art_pkg_of(pid_t pid, const char *procname, uid_t uid, struct art_pkg *out, struct ooms_err *err);

/* Whether ART in the app takes an agent. app_debuggable: the package's flag
 * (-1 unknown: taken as not); dumpable: the process's (-1 unknown). 1 when
 * it does (*v12: with JVMTI 1.2, a debuggable app; else ART's own
 * kArtTiVersion); 0 when it would refuse, why (one line: what was read,
 * what to set) in why. */
int art_agent_allowed(const struct art_build *b, int app_debuggable, int dumpable, const char *pkg, int *v12,
		      char *why, size_t len);

/* Whether process pid is dumpable: its /proc/PID/status belongs to its uid
 * (the kernel gives the files of a process that is not dumpable to root). 1, 0, or -1
 * when it cannot be told (the process runs as root). */
int art_proc_dumpable(pid_t pid, uid_t uid);

#endif
