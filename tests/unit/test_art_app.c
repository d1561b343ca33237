/* What Android says of an app (runtime/art_app.c): getprop's lines, an app's
 * packages.list line, and whether ART would take an agent, by build and
 * app, as AOSP's zygote (applyDebuggerSystemProperty) and ART
 * (VMDebug_nativeAttachAgent) decide it on Android 12 to 16. */
#include <errno.h>
#include <string.h>
#include "runtime/art_app.h"
#include "tap.h"

static const char *const LIST =
	"com.android.settings 1000 0 /data/user_de/0/com.android.settings platform:privapp:targetSdkVersion=34 3002,3003 0 34 1 @system\n"
	"com.google.android.gsf 10145 0 /data/user/0/com.google.android.gsf default:privapp:targetSdkVersion=30 3003 0 30 1 @system\n"
	"com.google.android.gms 10145 0 /data/user/0/com.google.android.gms default:privapp:targetSdkVersion=34 3002,3003 0 240 1 @system\n"
	"com.example.leakyapp 10123 0 /data/user/0/com.example.leakyapp default:targetSdkVersion=34 3003 1 7 0 com.android.vending\n"
	"com.example.debugapp 10124 1 /data/user/0/com.example.debugapp default:targetSdkVersion=34 none 0 1 0 @null\n";

/* the verdict for a build of sdk/type/ro.debuggable/jdwp and an app */
static int allowed(int sdk, const char *type, int ro_dbg, int jdwp, int app_dbg, int dumpable, int *v12, char *why)
{
	struct art_build b = {.sdk = sdk, .debuggable = ro_dbg, .jdwp_all = jdwp};

	snprintf(b.type, sizeof(b.type), "%s", type);
	why[0] = 0;
	return art_agent_allowed(&b, app_dbg, dumpable, "com.example.leakyapp", v12, why, 512);
}

int main(void)
{
	struct art_build b;
	struct art_pkg p;
	char why[512];
	int v12;

	art_build_parse("[dalvik.vm.heapsize]: [512m]\n[persist.debug.dalvik.vm.jdwp.enabled]: [1]\n"
			"[ro.build.type]: [userdebug]\n[ro.build.version.sdk]: [34]\n[ro.debuggable]: [1]\n"
			"[ro.multi]: [a\nb]\n",
			&b);
	TAP_EQ_INT(b.sdk, 34, "getprop: the SDK level");
	TAP_EQ_STR(b.type, "userdebug", "... the build type");
	TAP_OK(b.debuggable && b.jdwp_all, "... ro.debuggable and the JDWP property");
	art_build_parse("[ro.build.type]: [user]\n[ro.build.version.sdk]: [33]\n[ro.debuggable]: [0]\n", &b);
	TAP_OK(b.sdk == 33 && !strcmp(b.type, "user") && !b.debuggable && !b.jdwp_all, "a user build, no property");
	art_build_parse("", &b);
	TAP_OK(b.sdk == 0 && !b.type[0], "nothing said: nothing known");

	TAP_EQ_INT(art_pkg_find(LIST, "com.example.leakyapp", 10123, &p), 0, "a process named as its package");
	TAP_EQ_STR(p.name, "com.example.leakyapp", "... found");
	TAP_OK(!p.debuggable && p.appid == 10123, "... not debuggable, its app id");
	TAP_EQ_STR(p.data_dir, "/data/user/0/com.example.leakyapp", "... its data directory");
	TAP_EQ_INT(art_pkg_find(LIST, "com.example.leakyapp:remote", 1010123, &p), 0,
		   "a second process of it, for Android user 10");
	TAP_EQ_STR(p.name, "com.example.leakyapp", "... the package, not the process name");
	TAP_EQ_INT(art_pkg_find(LIST, "com.google.process.gapps", 10145, &p), 0,
		   "a process named without ':' and not as any package (a shared uid's)");
	TAP_OK(!strcmp(p.name, "com.google.android.gsf") || !strcmp(p.name, "com.google.android.gms"),
	       "... a package of its uid, not 'com.google.process.gapps' (%s)", p.name);
	TAP_EQ_INT(art_pkg_find(LIST, "com.google.android.gms:persistent", 10145, &p), 0, "a shared uid's process");
	TAP_EQ_STR(p.name, "com.google.android.gms", "... its own package first");
	TAP_EQ_INT(art_pkg_find(LIST, "com.example.debugapp", 10123, &p), 0,
		   "a name that is another uid's package: the uid decides");
	TAP_EQ_STR(p.name, "com.example.leakyapp", "... the uid's package");
	TAP_EQ_INT(art_pkg_find(LIST, "com.nothere", 10999, &p), -ENOENT, "a uid the list does not have");
	TAP_EQ_INT(art_pkg_find(LIST, "com.example.debugapp", 10124, &p), 0, "a debuggable app");
	TAP_OK(p.debuggable, "... its flag read");

	/* a debuggable app: JVMTI 1.2 on every build */
	TAP_OK(allowed(34, "user", 0, 0, 1, 1, &v12, why) && v12, "user build, debuggable app: taken (1.2)");
	TAP_OK(allowed(35, "userdebug", 1, 0, 1, 1, &v12, why) && v12, "Android 15 userdebug, debuggable app: taken");
	/* user builds: release apps never */
	TAP_OK(!allowed(33, "user", 0, 0, 0, 0, &v12, why), "Android 13 user build, release app: refused");
	TAP_OK(strstr(why, "android:debuggable") && strstr(why, "userdebug or eng"), "... what would work: %s", why);
	TAP_OK(!allowed(34, "user", 0, 1, 0, 1, &v12, why), "Android 14 user build, the property set: refused");
	/* Android 12 and 13 userdebug: every app has JDWP */
	TAP_OK(allowed(31, "userdebug", 1, 0, 0, 1, &v12, why) && !v12, "Android 12 userdebug, release app: taken (kArtTiVersion)");
	TAP_OK(allowed(33, "userdebug", 1, 0, 0, 1, &v12, why), "Android 13 userdebug, release app: taken");
	/* Android 14 and later userdebug: only with the property (at boot) */
	TAP_OK(!allowed(34, "userdebug", 1, 0, 0, 1, &v12, why), "Android 14 userdebug, no property: refused");
	TAP_OK(strstr(why, "setprop persist.debug.dalvik.vm.jdwp.enabled 1") && strstr(why, "reboot"),
	       "... the property and the reboot said: %s", why);
	TAP_OK(!allowed(36, "userdebug", 1, 0, 0, 1, &v12, why), "Android 16 userdebug, no property: refused");
	TAP_OK(allowed(34, "userdebug", 1, 1, 0, 1, &v12, why) && !v12, "Android 14 userdebug with the property: taken");
	TAP_OK(!allowed(34, "userdebug", 1, 1, 0, 0, &v12, why),
	       "... but a process not dumpable (the property set since boot): refused");
	TAP_OK(strstr(why, "after the last boot") && strstr(why, "reboot"), "... said: %s", why);
	TAP_OK(allowed(34, "userdebug", 1, 1, 0, -1, &v12, why), "... dumpable unknown: the properties decide");
	/* eng builds: every app */
	TAP_OK(allowed(34, "eng", 1, 0, 0, 1, &v12, why), "Android 14 eng, release app: taken");
	TAP_OK(!allowed(33, "eng", 1, 0, 0, 0, &v12, why), "a process not dumpable on any build: no JDWP, refused");
	/* the debuggable flag unknown is taken as not */
	TAP_OK(!allowed(34, "userdebug", 1, 0, -1, 1, &v12, why), "flag unknown on Android 14 userdebug: refused");
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
