/* The shim's JVMTI environment. HotSpot, and ART for a debuggable app,
 * give JVMTI_VERSION_1_2; ART gives a release app (an agent attached on a
 * userdebug build) only its own version, kArtTiVersion: the same function
 * table, with the capabilities a non-debuggable app may have, which is all
 * the shim asks on ART (RunAgentThread, the fork-dump's none). */
#ifndef OOMSCOPE_SHIM_JVMTI_ENV_H
#define OOMSCOPE_SHIM_JVMTI_ENV_H

#include <jvmti.h>

#define SHIM_ART_TI_VERSION 0x70010200 /* art/openjdkjvmti/art_jvmti.h: JVMTI_VERSION_1_2 | 0x70000000 */

/* JNI_OK with *out set, naming the version taken (*version: 0x30010200 or
 * SHIM_ART_TI_VERSION); else GetEnv's last answer. */
static inline jint shim_jvmti_env(JavaVM *vm, jvmtiEnv **out, jint *version)
{
	jint r = (*vm)->GetEnv(vm, (void **)out, JVMTI_VERSION_1_2);

	*version = JVMTI_VERSION_1_2;
	if (r != JNI_OK) {
		r = (*vm)->GetEnv(vm, (void **)out, SHIM_ART_TI_VERSION);
		*version = SHIM_ART_TI_VERSION;
	}
	return r;
}

#endif
