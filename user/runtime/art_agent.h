/* The shim into an Android app as it ships (watch --shim, dump --load-shim
 * on ART): oomscope, as root on the device, reads the symbols the shim
 * cannot (libart's .gnu_debugdata), copies the shim into the app's own
 * code_cache (owned by the app's uid, labelled as that directory is, as
 * `run-as` would have made it), and asks the activity manager to load it:
 * `cmd activity attach-agent PID PATH=OPTIONS`. The activity manager takes
 * it only in a debuggable app, or in any app on a userdebug or eng build
 * (ro.debuggable=1); ART then gives the shim the JVMTI environment it can
 * (shim/jvmti_env.h). */
#ifndef OOMSCOPE_RUNTIME_ART_AGENT_H
#define OOMSCOPE_RUNTIME_ART_AGENT_H

#include <stddef.h>
#include <sys/types.h>
#include "util/err.h"

/* The agent's options for the shim in process pid whose libart.so is
 * libart (its path in the process's namespace): the symbols the shim needs,
 * looked up in every table the file has, .gnu_debugdata too. *found: how
 * many. 0, or -errno with err set. */
int ooms_art_shim_options(pid_t pid, const char *libart, char *out, size_t len, int *found, struct ooms_err *err);

/* Where the shim was put: its path as the app sees it, and how. */
struct ooms_art_install {
	char path[512];       /* /data/user/N/PKG/code_cache/liboomscope_shim.so */
	char package[256];    /* from the process's name, its ":process" part cut */
	uid_t uid;            /* the app's */
	int labelled;         /* 1: given the directory's SELinux label; 0: the directory has none */
};

/* Copies shim_file into process pid's app data directory's code_cache
 * (through /proc/PID/root; only a real directory the app's uid owns, never a
 * link), owned by the app's uid, mode 0500, with the directory's SELinux
 * label; written under a temporary name, renamed when whole. 0, or -errno
 * with err set. */
int ooms_art_install_shim(pid_t pid, const char *shim_file, struct ooms_art_install *out, struct ooms_err *err);

/* `cmd activity attach-agent PID PATH[=OPTIONS]` (cmd found on PATH: on
 * Android /system/bin/cmd), bounded in time. 0 when it took the request
 * (the app loads the agent later, on its main thread); -EPERM when the
 * activity manager refused (the app is not debuggable on a user build),
 * -errno otherwise, its words in err. */
int ooms_art_attach_agent(pid_t pid, const char *path, const char *options, struct ooms_err *err);

/* Loading the shim, a step at a time (a watch takes one each sample; an
 * app held at its start is not known to the activity manager, which
 * answers "Unknown process", until it has run a while): the attach is
 * tried until give_up, then the shim's answer awaited for ART_SHIM_WAIT_MS. */
#define ART_SHIM_TRY_MS 30000
#define ART_SHIM_WAIT_MS 10000

enum ooms_art_load_state { ART_LOAD_TRYING, ART_LOAD_WAITING, ART_LOAD_DONE, ART_LOAD_FAILED };

struct ooms_art_loader {
	pid_t pid;
	const char *libart, *shim_file; /* borrowed */
	int64_t give_up_ns, answer_by_ns;
	enum ooms_art_load_state state;
	int tries;
	struct ooms_art_install in;
};

void ooms_art_loader_init(struct ooms_art_loader *l, pid_t pid, const char *libart, const char *shim_file,
			  int64_t now_ns);
/* One step (at most the attach command's run, or a ping): the state it
 * leaves; at ART_LOAD_FAILED, err says why and what to do. */
enum ooms_art_load_state ooms_art_loader_step(struct ooms_art_loader *l, int64_t now_ns, struct ooms_err *err);

#endif
