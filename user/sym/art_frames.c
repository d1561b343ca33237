/* ART's Java frames by module and symbol: see art_frames.h. */
#include "sym/art_frames.h"

#include <string.h>

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n > k && !strcmp(s + n - k, tail);
}

enum ooms_art_frame ooms_art_frame_kind(const char *base, const char *sym)
{
	/* the interpreters: nterp (Android 12+), mterp (up to 11), the switch
	 * interpreter, and the bridges from compiled code into them (the names
	 * Debian's Android 11 libart.so exports; nterp's from AOSP) */
	static const char *const interp[] = {"ExecuteNterpImpl", "ExecuteMterpImpl", "NterpCommon", "nterp_", "Mterp",
					     "_ZN3art11interpreter", "artQuickToInterpreterBridge",
					     "art_quick_to_interpreter_bridge"};

	if (!base)
		return OOMS_ART_NONE;
	if (ends_with(base, ".oat") || ends_with(base, ".odex"))
		return OOMS_ART_COMPILED;
	if (strncmp(base, "libart.so", 9) || !sym)
		return OOMS_ART_NONE;
	for (size_t i = 0; i < sizeof(interp) / sizeof(interp[0]); i++)
		if (!strncmp(sym, interp[i], strlen(interp[i])))
			return OOMS_ART_INTERPRETER;
	return OOMS_ART_NONE;
}
