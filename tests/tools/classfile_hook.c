/* classfile_hook: the shim's class file rewriter (user/shim/classfile.c) on
 * a file, for shim_oomhook.bats.
 *   classfile_hook IN.class OUT.class HOOK_CLASS METHOD DESC
 *     rewrites IN's constructors to call HOOK_CLASS.METHOD(DESC) with the
 *     new object before they return; prints "hooked N"
 *   classfile_hook --hook-class OUT.class NAME METHOD DESC
 *     writes the shim's hook class (a public static native method)
 * Exit 1 with one line on a file it refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/classfile.c"

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		return fprintf(stderr, "classfile_hook: cannot write %s\n", path), 1;
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t in[1 << 20], out[(1 << 20) + 4096];
	FILE *f;
	size_t n;
	long m;
	int hooked = 0;

	if (argc == 6 && !strcmp(argv[1], "--hook-class")) {
		m = shim_classfile_hook_class(argv[3], argv[4], argv[5], out, sizeof(out));
		return m < 0 ? (fprintf(stderr, "classfile_hook: names too long\n"), 1) : write_file(argv[2], out, (size_t)m);
	}
	if (argc != 6)
		return fprintf(stderr, "usage: classfile_hook IN OUT HOOK_CLASS METHOD DESC | --hook-class OUT NAME METHOD DESC\n"), 2;
	if (!(f = fopen(argv[1], "rb")))
		return fprintf(stderr, "classfile_hook: cannot read %s\n", argv[1]), 1;
	n = fread(in, 1, sizeof(in), f);
	fclose(f);
	m = shim_classfile_hook_ctors(in, n, argv[3], argv[4], argv[5], out, sizeof(out), &hooked);
	if (m < 0)
		return fprintf(stderr, "classfile_hook: %s is not a class file it can read\n", argv[1]), 1;
	printf("hooked %d\n", hooked);
	return write_file(argv[2], out, (size_t)m);
}
