/* synth_hprof jvm|android ID_SIZE OUT: writes a synthetic dump with every
 * record and sub-record kind (tests/tools/synth_hprof.h) to OUT. */
#include <stdio.h>
#include <string.h>
#include "synth_hprof.h"

int main(int argc, char **argv)
{
	struct buf b;
	FILE *f;

	if (argc != 4 || (strcmp(argv[1], "jvm") && strcmp(argv[1], "android")) ||
	    (strcmp(argv[2], "4") && strcmp(argv[2], "8"))) {
		fprintf(stderr, "usage: synth_hprof jvm|android 4|8 OUT\n");
		return 2;
	}
	b = make_dump((unsigned)atoi(argv[2]), !strcmp(argv[1], "android"));
	f = fopen(argv[3], "wb");
	if (!f || fwrite(b.p, 1, b.len, f) != b.len || fclose(f)) {
		perror(argv[3]);
		return 1;
	}
	free(b.p);
	return 0;
}
