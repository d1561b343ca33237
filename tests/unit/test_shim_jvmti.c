/* The shim's JVMTI environment (user/shim/jvmti_env.h) from a JavaVM that
 * refuses JVMTI_VERSION_1_2, as ART does for a release app on a userdebug
 * build, and from one that gives it. */
#include <string.h>
#include "shim/jvmti_env.h"
#include "tap.h"

static jint asked[4];
static int nasked, refuse_12, refuse_art;
static jvmtiEnv the_env;

static jint JNICALL fake_get_env(JavaVM *vm, void **out, jint version)
{
	(void)vm;
	if (nasked < 4)
		asked[nasked++] = version;
	if ((version == JVMTI_VERSION_1_2 && refuse_12) || (version == SHIM_ART_TI_VERSION && refuse_art) ||
	    (version != JVMTI_VERSION_1_2 && version != SHIM_ART_TI_VERSION))
		return JNI_EVERSION;
	*out = &the_env;
	return JNI_OK;
}

int main(void)
{
	struct JNIInvokeInterface_ fns;
	JavaVM vm = &fns;
	jvmtiEnv *env = NULL;
	jint version = 0;

	memset(&fns, 0, sizeof(fns));
	fns.GetEnv = fake_get_env;
	TAP_EQ_INT(shim_jvmti_env(&vm, &env, &version), JNI_OK, "a VM that gives 1.2 (HotSpot, a debuggable app)");
	TAP_OK(env == &the_env && version == JVMTI_VERSION_1_2 && nasked == 1, "1.2 taken, asked once");
	nasked = 0, env = NULL, refuse_12 = 1;
	TAP_EQ_INT(shim_jvmti_env(&vm, &env, &version), JNI_OK, "ART refusing 1.2 (a release app, userdebug build)");
	TAP_OK(env == &the_env && version == 0x70010200 && nasked == 2 && asked[0] == JVMTI_VERSION_1_2 &&
		       asked[1] == 0x70010200,
	       "kArtTiVersion (0x70010200) asked after 1.2, and taken");
	nasked = 0, env = NULL, refuse_art = 1;
	TAP_EQ_INT(shim_jvmti_env(&vm, &env, &version), JNI_EVERSION, "both refused (a user build): JNI_EVERSION");
	TAP_OK(env == NULL, "no environment");
	return tap_done();
}
