#include "collector/java/unsafe_probes.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdint.h>
#include "sym/symbolize.h"

int ooms_unsafe_attach(pid_t pid, const char *lib, struct bpf_program *const progs[UNSAFE_PROBES],
		       struct bpf_link *out[UNSAFE_PROBES], const char **missing)
{
	static const char *const syms[] = {"Unsafe_AllocateMemory0", "Unsafe_ReallocateMemory0", "Unsafe_FreeMemory0"};
	/* each program's symbol (syms[]), and whether it is a return probe */
	static const int sym_of[UNSAFE_PROBES] = {0, 0, 1, 1, 2};
	static const int is_ret[UNSAFE_PROBES] = {0, 1, 0, 1, 0};
	uint64_t off[3];
	int err = 0;

	*missing = NULL;
	for (int i = 0; i < 3; i++)
		if (ooms_sym_elf_find(lib, syms[i], &off[i]) != 0) {
			*missing = syms[i];
			return -ENOENT;
		}
	for (int i = 0; i < UNSAFE_PROBES; i++) {
		out[i] = bpf_program__attach_uprobe(progs[i], is_ret[i], pid, lib, off[sym_of[i]]);
		if (!out[i] && !err)
			err = errno ? -errno : -EINVAL;
	}
	if (err)
		for (int i = 0; i < UNSAFE_PROBES; i++) {
			bpf_link__destroy(out[i]);
			out[i] = NULL;
		}
	return err;
}
