/* The shim into an Android app as it ships (watch --shim, dump --load-shim
 * on ART): oomscope, as root on the device, reads the symbols the shim
 * cannot (libart's .gnu_debugdata), copies the shim into the app's own
 * code_cache (owned by the app's uid, labelled as that directory is, as
 * `run-as` would have made it), and asks the activity manager to load it:
 * `cmd activity attach-agent PID PATH=OPTIONS`. Only where ART would take
 * it (art_app.h: an agent ART refuses kills the app on Android 14 and
 * later); ART then gives the shim the JVMTI environment it can
 * (shim/jvmti_env.h). */
#ifndef OOMSCOPE_RUNTIME_ART_AGENT_H
#define OOMSCOPE_RUNTIME_ART_AGENT_H

#include <stddef.h>
#include <sys/types.h>
#include "proc/freezer.h"
#include "runtime/art_app.h"
#include "util/err.h"

/* The agent's options for the shim in process pid whose libart.so is
 * libart (its path in the process's namespace): the symbols the shim needs,
 * looked up in every table the file has, .gnu_debugdata too. *found: how
 * many. 0, or -errno with err set. */
int ooms_art_shim_options(pid_t pid, const char *libart, char *out, size_t len, int *found, struct ooms_err *err);

/* The app behind a process, as art_app.h reads it. */
struct ooms_art_app {
	uid_t uid;                /* the process's real uid */
	char process[256];        /* its name (command line's first word) */
	char package[256];        /* packages.list's for its uid, else the name up to ':' */
	int listed;               /* 1: found in packages.list */
	char unlisted[200];       /* why not, when not */
	int debuggable;           /* the package's flag: 1, 0, -1 unknown */
	int dumpable;             /* the process's: 1, 0, -1 unknown */
	struct art_build build;   /* read only when the app is not debuggable */
	int v12;                  /* 1: a debuggable app (JVMTI 1.2) */
};

/* Reads process pid's app: uid, name, package, flags. 0, or -errno with err set. */
int ooms_art_app_read(pid_t pid, struct ooms_art_app *app, struct ooms_err *err);
/* The same, and whether ART would take an agent there: 0 when it would;
 * -EPERM when it would refuse or that cannot be told (err says what was
 * read and what to set); nothing is asked of the app either way. */
int ooms_art_app_check(pid_t pid, struct ooms_art_app *app, struct ooms_err *err);

/* Where the shim was put: its path as the app sees it, and how. */
struct ooms_art_install {
	char path[512];       /* /data/user/N/PKG/code_cache/liboomscope_shim.so */
	char package[256];    /* the app's (ooms_art_app's) */
	uid_t uid;            /* the app's */
	int labelled;         /* 1: given the directory's SELinux label; 0: the directory has none */
};

/* Copies shim_file into process pid's app data directory's code_cache
 * (through /proc/PID/root; only a real directory the app's uid owns, never a
 * link), owned by the app's uid, mode 0500, with the directory's SELinux
 * label; written under a temporary name, renamed when whole. 0, or -errno
 * with err set. */
int ooms_art_install_shim(pid_t pid, const struct ooms_art_app *app, const char *shim_file,
			  struct ooms_art_install *out, struct ooms_err *err);

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
	struct ooms_art_app app;
	struct ooms_art_install in;
	/* a frozen app, thawed from the first step to the end (freezer.h) */
	char jvmti[8];            /* the JVMTI version the shim got: "1.2" or "art" (kArtTiVersion) */
	int thaw_tried, thawed, refrozen;
	struct ooms_thaw thaw;
	char refreeze_note[160];
};

void ooms_art_loader_init(struct ooms_art_loader *l, pid_t pid, const char *libart, const char *shim_file,
			  int64_t now_ns);
/* One step (at most the attach command's run, or a ping): the state it
 * leaves; at ART_LOAD_FAILED, err says why and what to do. The first
 * attach is asked only after ooms_art_app_check says ART takes it. A frozen
 * app is thawed from the first step until the load ends, then frozen again
 * (thawed, refrozen, refreeze_note say what was done). */
enum ooms_art_load_state ooms_art_loader_step(struct ooms_art_loader *l, int64_t now_ns, struct ooms_err *err);

#endif
