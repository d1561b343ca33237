/* synth_hprof jvm|android|android-app|android-app-image|android-art ID_SIZE OUT:
 * writes a synthetic dump with every record and sub-record kind
 * (tests/tools/synth_hprof.h), a small Android app with leaks
 * (tests/tools/synth_android_app.h; -image: its destroyed Window in ART's image
 * heap), or ART's root kinds, NativeAllocationRegistry and Matrix's watch
 * (tests/tools/synth_android_art.h), to OUT. */
#include <stdio.h>
#include <string.h>
#include "synth_android_art.h"

int main(int argc, char **argv)
{
	struct buf b;
	FILE *f;

	if (argc != 4 || (strcmp(argv[1], "jvm") && strcmp(argv[1], "android") && strcmp(argv[1], "android-app") &&
	     strcmp(argv[1], "android-app-image") && strcmp(argv[1], "android-art")) ||
	    (strcmp(argv[2], "4") && strcmp(argv[2], "8"))) {
		fprintf(stderr, "usage: synth_hprof jvm|android|android-app|android-app-image|android-art 4|8 OUT\n");
		return 2;
	}
	if (!strcmp(argv[1], "android-art"))
		b = make_android_art((unsigned)atoi(argv[2]));
	else if (!strncmp(argv[1], "android-app", 11))
		b = make_android_app((unsigned)atoi(argv[2]), !strcmp(argv[1], "android-app-image"));
	else
		b = make_dump((unsigned)atoi(argv[2]), !strcmp(argv[1], "android"));
	f = fopen(argv[3], "wb");
	if (!f || fwrite(b.p, 1, b.len, f) != b.len || fclose(f)) {
		perror(argv[3]);
		return 1;
	}
	free(b.p);
	return 0;
}
