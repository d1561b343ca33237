/* Unit tests of the collector's pure parts: syscall tables, stack interning,
 * fd kinds, the JSON writer, atomic files, and the stack repair heuristic. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/kernel/collect.h"
#include "collector/attrib/attrib.h"
#include "collector/attrib/failed_calls.h"
#include "collector/attrib/stacks.h"
#include "collector/kernel/syscall_table.h"
#include "proc/procfs.h"
#include "proc/proc_snapshot.h"
#include "sym/stackfix.h"
#include "sym/symbolize.h"
#include "tap.h"
#include "util/atomic_file.h"
#include "util/json.h"
#include "util/text.h"

static void test_syscall_tables(void)
{
	uint8_t cls[OOMS_NR_SLOTS];

	ooms_syscall_classes(ARCH_X86_64, cls);
	TAP_EQ_INT(cls[257], SC_FD_PATH_A1, "x86_64 openat (257) returns an fd, its path at arg1");
	TAP_EQ_INT(cls[2], SC_FD_PATH_A0, "x86_64 open (2): its path at arg0");
	TAP_EQ_INT(cls[41], SC_FD_SOCKET, "x86_64 socket (41)");
	TAP_EQ_INT(cls[290], SC_FD_RET, "x86_64 eventfd2 (290) returns an fd");
	TAP_EQ_INT(cls[293], SC_FD_PAIR_A0, "x86_64 pipe2 (293) writes a pair at arg0");
	TAP_EQ_INT(cls[53], SC_FD_PAIR_A3, "x86_64 socketpair (53) writes a pair at arg3");
	TAP_EQ_INT(cls[3], SC_CLOSE, "x86_64 close is 3");
	TAP_EQ_INT(cls[9], SC_MMAP, "x86_64 mmap is 9");
	TAP_EQ_INT(cls[0], SC_NONE, "x86_64 read (0) is not followed");
	TAP_EQ_INT(cls[OOMS_COMPAT_BASE + 5], SC_NONE, "x86_64 has no compat half");
	TAP_EQ_STR(ooms_syscall_name(ARCH_X86_64, 291), "epoll_create1", "x86_64 291 is epoll_create1");

	ooms_syscall_classes(ARCH_ARM64, cls);
	TAP_EQ_INT(cls[56], SC_FD_PATH_A1, "arm64 openat is 56");
	TAP_EQ_INT(cls[57], SC_CLOSE, "arm64 close is 57");
	TAP_EQ_INT(cls[19], SC_FD_RET, "arm64 eventfd2 is 19");
	TAP_EQ_INT(cls[222], SC_MMAP, "arm64 mmap is 222");
	TAP_EQ_INT(cls[2], SC_NONE, "arm64 has no open(2) at 2 (io_cancel... not followed)");
	TAP_EQ_INT(cls[OOMS_COMPAT_BASE + 5], SC_FD_PATH_A0, "arm32 open is 5 in the compat half");
	TAP_EQ_INT(cls[OOMS_COMPAT_BASE + 6], SC_CLOSE, "arm32 close is 6");
	TAP_EQ_INT(cls[OOMS_COMPAT_BASE + 356], SC_FD_RET, "arm32 eventfd2 is 356");
	TAP_EQ_INT(cls[OOMS_COMPAT_BASE + 192], SC_MMAP, "arm32 mmap2 is 192");
	TAP_EQ_STR(ooms_syscall_name(ARCH_ARM64, OOMS_COMPAT_BASE + 357), "epoll_create1",
		   "arm32 357 is epoll_create1");
	TAP_EQ_STR(ooms_syscall_name(ARCH_ARM64, 20), "epoll_create1", "arm64 20 is epoll_create1");
}

static void test_stacks(void)
{
	struct ooms_stacks *st = ooms_stacks_new();
	uint64_t a[3] = {1, 2, 3}, b[3] = {1, 2, 4}, big[40];
	uint32_t ia, ib, ids[3000];
	const uint64_t *got;
	size_t n = 0;
	int same = 1;

	ia = ooms_stacks_intern(st, a, 3);
	ib = ooms_stacks_intern(st, b, 3);
	TAP_OK(ia && ib && ia != ib, "different stacks get different ids");
	TAP_EQ_INT(ooms_stacks_intern(st, a, 3), ia, "the same stack gets the same id");
	TAP_EQ_INT(ooms_stacks_intern(st, a, 2), 3, "a prefix is another stack");
	TAP_EQ_INT(ooms_stacks_intern(st, a, 0), 0, "an empty stack has no id");
	got = ooms_stacks_get(st, ib, &n);
	TAP_OK(got && n == 3 && got[2] == 4, "frames come back");
	TAP_OK(ooms_stacks_get(st, 999, &n) == NULL, "unknown id gives NULL");
	/* grow past the hash table's first size and check every id still resolves */
	for (int i = 0; i < 3000; i++) {
		for (int k = 0; k < 40; k++)
			big[k] = (uint64_t)i * 1000 + k;
		ids[i] = ooms_stacks_intern(st, big, 40);
	}
	for (int i = 0; i < 3000; i++) {
		for (int k = 0; k < 40; k++)
			big[k] = (uint64_t)i * 1000 + k;
		same &= ooms_stacks_intern(st, big, 40) == ids[i];
	}
	TAP_OK(same, "3000 stacks keep their ids across table growth");
	TAP_EQ_INT(ooms_stacks_count(st), 3003, "count");
	ooms_stacks_free(st);
}

static void test_fd_kind(void)
{
	char buf[64];

	TAP_EQ_STR(ooms_fd_kind("socket:[12345]", buf, sizeof(buf)), "socket", "socket");
	TAP_EQ_STR(ooms_fd_kind("pipe:[777]", buf, sizeof(buf)), "pipe", "pipe");
	TAP_EQ_STR(ooms_fd_kind("anon_inode:[eventfd]", buf, sizeof(buf)), "anon_inode:[eventfd]", "eventfd");
	TAP_EQ_STR(ooms_fd_kind("anon_inode:[eventpoll]", buf, sizeof(buf)), "anon_inode:[eventpoll]", "eventpoll");
	TAP_EQ_STR(ooms_fd_kind("/dev/ashmem/dalvik-heap (deleted)", buf, sizeof(buf)), "/dev/ashmem", "ashmem");
	TAP_EQ_STR(ooms_fd_kind("/dev/null", buf, sizeof(buf)), "/dev/null", "device paths as is");
	TAP_EQ_STR(ooms_fd_kind("/memfd:jit-cache (deleted)", buf, sizeof(buf)), "memfd", "memfd");
	TAP_EQ_STR(ooms_fd_kind("/data/app/base.apk", buf, sizeof(buf)), "file", "regular files");
	TAP_EQ_STR(ooms_fd_kind("net:[4026531840]", buf, sizeof(buf)), "net", "namespaces by type");
	TAP_EQ_STR(ooms_fd_kind("user:[4026531837]", buf, sizeof(buf)), "user", "a user namespace");
	/* a target gone before /proc was read: the path its open was given, relative to its directory */
	TAP_EQ_STR(ooms_fd_kind("stress-open-7523-1005575960", buf, sizeof(buf)), "file", "a relative path is a file");
	TAP_EQ_STR(ooms_fd_kind("cache/a:b[1]", buf, sizeof(buf)), "file", "a relative path with ':' and '[' is a file");
}

static void test_json(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct json j;

	json_init(&j, f, 0);
	json_obj(&j);
	json_kstr(&j, "s", "a\"b\\c\n\x01");
	json_kint(&j, "i", -5);
	json_key(&j, "arr");
	json_arr(&j);
	json_int(&j, 1);
	json_str(&j, NULL);
	json_arr(&j);
	json_arr_end(&j);
	json_arr_end(&j);
	json_khex(&j, "h", 255);
	json_kdbl(&j, "d", 1.0 / 0.0);
	json_obj_end(&j);
	fclose(f);
	TAP_EQ_STR(out, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"i\":-5,\"arr\":[1,null,[]],\"h\":\"0xff\",\"d\":null}",
		   "JSON writer escapes and separates");
	free(out);
}

static void test_atomic_file(void)
{
	char dir[] = "/tmp/ooms-unit-XXXXXX", path[128], cmd[160];
	struct atomic_file af;
	struct stat sb;

	TAP_OK(mkdtemp(dir) != NULL, "temp dir");
	snprintf(path, sizeof(path), "%s/out.json", dir);
	TAP_EQ_INT(atomic_open(&af, path), 0, "atomic_open");
	fputs("half", af.f);
	fflush(af.f);
	TAP_OK(stat(path, &sb) != 0, "nothing at the final name before commit");
	atomic_abort(&af);
	TAP_OK(stat(path, &sb) != 0, "abort leaves nothing");
	TAP_EQ_INT(atomic_open(&af, path), 0, "atomic_open again");
	fputs("{}\n", af.f);
	TAP_EQ_INT(atomic_commit(&af), 0, "commit");
	TAP_OK(stat(path, &sb) == 0 && sb.st_size == 3, "the whole file is there after commit");
	snprintf(path, sizeof(path), "%s/missing/out.json", dir);
	TAP_EQ_INT(atomic_open(&af, path), -ENOENT, "a missing directory is an error, not a crash");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	TAP_EQ_INT(system(cmd), 0, "cleanup");
}

/* A caller whose return address the repair must find in a stack slice. */
static uint64_t slice_caller_ret;
__attribute__((noinline)) static void capture_caller(void)
{
	slice_caller_ret = (uint64_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void known_caller(void)
{
	capture_caller();
	__asm__ volatile("" ::: "memory");
}

/* another caller: a return address that is in no chain (a stale word); not
 * the same code as known_caller, or the compiler folds the two into one */
static volatile int other_calls;
__attribute__((noinline)) static void other_caller(void)
{
	other_calls++;
	capture_caller();
	other_calls++;
}

/* The link register: a synthetic event at the first instruction of libc's
 * open (a uprobe there, or a syscall in a leaf wrapper) whose
 * frame-pointer chain skipped the caller. On arm64 the caller is only in lr;
 * on x86_64 it is on the stack and lr is ignored. */
static void test_stackfix_lr(struct ooms_symbolizer *sym, struct ooms_stackfix *fx)
{
	uint64_t in[2], out[8], slice[32] = {0}, pc = (uint64_t)&open, up = (uint64_t)__builtin_return_address(0);
	uint64_t sp = 0x7ff000000000ull;
	struct ooms_frame f;
	size_t n;

	known_caller(); /* slice_caller_ret: a return address in known_caller */
	in[0] = pc;
	in[1] = up; /* the caller's caller, from the frame-pointer chain */
#if defined(__aarch64__)
	{
		struct ooms_unwind_rule r;
		uint64_t leaf = 0, pac = 0x2Aull << 56 | 0x5Bull << 48;

		slice[0] = 42;
		slice[2] = up; /* return addresses on the stack that are not the caller */
		slice[3] = slice_caller_ret + 8;
		n = ooms_stackfix_repair(fx, in, 2, sp, slice_caller_ret, slice, 32, out, 8);
		TAP_EQ_INT(n, 3, "entry of open: pc, lr, the chain");
		TAP_OK(out[0] == pc && out[1] == slice_caller_ret && out[2] == up, "the caller recovered from lr");
		memset(&f, 0, sizeof(f));
		ooms_sym_resolve(sym, out[1], 1, &f);
		TAP_EQ_STR(f.symbol, "known_caller", "the lr frame names the caller");

		n = ooms_stackfix_repair(fx, in, 2, sp, slice_caller_ret | pac, slice, 32, out, 8);
		TAP_OK(n == 3 && out[1] == slice_caller_ret,
		       "a pointer-authentication signature is stripped from lr (mask %#llx)",
		       (unsigned long long)ooms_sym_code_mask(sym));
		TAP_OK((slice_caller_ret & ooms_sym_code_mask(sym)) == slice_caller_ret &&
		       (pc & ooms_sym_code_mask(sym)) == pc, "the mask keeps every mapped code address");

		in[1] = slice_caller_ret;
		n = ooms_stackfix_repair(fx, in, 2, sp, slice_caller_ret, slice, 32, out, 8);
		TAP_OK(n == 2 && out[1] == slice_caller_ret, "no duplicate when the chain already has lr");
		in[1] = up;

		/* a leaf: libc's eventfd never saves x30; at its svc only lr has the caller */
		for (uint64_t d = 0; d < 16 && !leaf; d += 4)
			if (ooms_sym_unwind_at(sym, (uint64_t)&eventfd + d, &r) == 0 && r.ra_reg == 30 && d)
				leaf = (uint64_t)&eventfd + d;
		TAP_OK(leaf != 0, "a pc inside the leaf eventfd with the return address in x30");
		in[0] = leaf;
		n = ooms_stackfix_repair(fx, in, 2, sp, slice_caller_ret, slice, 32, out, 8);
		TAP_OK(n == 3 && out[1] == slice_caller_ret && out[2] == up, "stackfix takes lr at a leaf pc");
		n = ooms_stackfix_repair(fx, in, 2, sp, 0, slice, 32, out, 8);
		TAP_OK(n >= 2 && out[1] != slice_caller_ret, "without lr the caller is not invented (%zu frames)", n);

		/* after the prologue a signed saved LR in the slice is stripped too */
		{
			uint64_t saved_pc = 0, big[32] = {0};

			for (uint64_t d = 4; d < 64 && !saved_pc; d += 4)
				if (ooms_sym_unwind_at(sym, pc + d, &r) == 0 && r.ra_reg < 0 &&
				    r.cfa_from_sp + r.ra_from_cfa >= 0 && r.cfa_from_sp + r.ra_from_cfa < 256)
					saved_pc = pc + d;
			TAP_OK(saved_pc != 0, "open saves x30 in its prologue");
			big[(r.cfa_from_sp + r.ra_from_cfa) / 8] = slice_caller_ret | pac;
			in[0] = saved_pc;
			n = ooms_stackfix_repair(fx, in, 2, sp, 0x1234, big, 32, out, 8);
			TAP_OK(n >= 2 && out[1] == slice_caller_ret, "a signed saved LR is stripped; a stale lr is not taken");
		}
	}
#else
	slice[0] = slice_caller_ret; /* at entry the return address is at sp */
	n = ooms_stackfix_repair(fx, in, 2, sp, 0, slice, 32, out, 8);
	TAP_OK(n == 3 && out[1] == slice_caller_ret && out[2] == up, "entry of open: the caller from the slice word at sp");
	memset(&f, 0, sizeof(f));
	ooms_sym_resolve(sym, out[1], 1, &f);
	TAP_EQ_STR(f.symbol, "known_caller", "the slice frame names the caller");
	n = ooms_stackfix_repair(fx, in, 2, sp, up + 1, slice, 32, out, 8);
	TAP_OK(n == 3 && out[1] == slice_caller_ret && out[2] == up, "x86_64: lr is ignored");
	TAP_OK(ooms_sym_code_mask(sym) == UINT64_MAX, "x86_64: code addresses are not masked");
#endif
}

static void test_stackfix(void)
{
	struct ooms_symbolizer *sym = ooms_sym_new(getpid());
	struct ooms_stackfix *fx = ooms_stackfix_new(sym);
	uint64_t libc_ip = (uint64_t)&eventfd + 4, out[8], in[3], slice[8] = {0};
	struct ooms_frame f;
	size_t n;

	known_caller();
	TAP_OK(ooms_stackfix_is_return_addr(fx, slice_caller_ret), "a real return address is recognized");
	TAP_OK(!ooms_stackfix_is_return_addr(fx, (uint64_t)&known_caller), "a function start is not a return address");
	TAP_OK(!ooms_stackfix_is_return_addr(fx, 0x10), "an unmapped address is not");

	/* FP chain skipped the caller: [libc ip, caller's caller]; the slice has
	 * data words, then the caller's return address */
	in[0] = libc_ip;
	in[1] = (uint64_t)__builtin_return_address(0);
	in[2] = 0xdeadbeef; /* garbage: the chain went astray */
	slice[0] = 42;
	slice[1] = (uint64_t)&slice;
	slice[2] = (uint64_t)&known_caller; /* a code pointer, not after a call */
	slice[3] = slice_caller_ret;
	n = ooms_stackfix_repair(fx, in, 3, 0, 0, slice, 8, out, 8);
	TAP_EQ_INT(n, 3, "libc frame, recovered caller, caller's caller; garbage cut");
	TAP_OK(out[0] == libc_ip && out[1] == slice_caller_ret && out[2] == in[1], "frames in order");
	memset(&f, 0, sizeof(f));
	ooms_sym_resolve(sym, out[1], 1, &f);
	TAP_EQ_STR(f.symbol, "known_caller", "the recovered frame names the caller");
	/* when the chain already has the caller, nothing is inserted */
	in[1] = slice_caller_ret;
	n = ooms_stackfix_repair(fx, in, 2, 0, 0, slice, 8, out, 8);
	TAP_EQ_INT(n, 2, "no duplicate when frame 1 is already the caller");

	/* Inside a libc function with a frame of its own, CFI says which slice word
	 * is the return address; a stale return address lower down (left in
	 * uninitialized locals by an earlier call) must not win. */
	{
		int64_t cfa = 0, ra = 0;
		uint64_t pc = 0, big_slice[32] = {0}, stale;
		int found = 0;

		for (uint64_t d = 0; d < 512 && !found; d++) {
			pc = (uint64_t)&open + d;
			found = ooms_sym_unwind_rule(sym, pc, &cfa, &ra) == 0 && cfa > 16 && cfa + ra < 256;
		}
		TAP_OK(found, "libc open has CFI with a frame of its own (CFA = sp + %lld, RA at CFA %lld)",
		       (long long)cfa, (long long)ra);
		known_caller();
		stale = slice_caller_ret;
		big_slice[1] = stale;
		big_slice[(cfa + ra) / 8] = (uint64_t)__builtin_return_address(0);
		in[0] = pc;
		/* a stale link register (arm64: the function saved the real one) */
		n = ooms_stackfix_repair(fx, in, 1, 0x7ff000000000ull, stale, big_slice, 32, out, 8);
		TAP_OK(n == 2 && out[1] == (uint64_t)__builtin_return_address(0),
		       "CFI picks the real return address over a stale one (in the slice or the link register)");
		n = ooms_stackfix_repair(fx, in, 1, 0, 0, big_slice, 32, out, 8);
		TAP_OK(n == 2 && out[1] == stale, "without sp the scan is the fallback (and takes the first)");

		/* the scanning walk meets the chain at the caller and stops there:
		 * the chain goes on, not stale return addresses further up the slice */
		{
			uint64_t chain[3], far_stale, up = (uint64_t)__builtin_return_address(0);

			other_caller();
			far_stale = slice_caller_ret;
			known_caller();
			memset(big_slice, 0, sizeof(big_slice));
			big_slice[(cfa + ra) / 8] = slice_caller_ret;
			big_slice[31] = far_stale;
			chain[0] = pc;
			chain[1] = slice_caller_ret;
			chain[2] = up;
			n = ooms_stackfix_repair_scan(fx, chain, 3, 0x7ff000000000ull, 0, big_slice, 32, out, 8);
			TAP_OK(far_stale != slice_caller_ret, "two distinct return addresses");
			TAP_OK(n == 3 && out[1] == slice_caller_ret && out[2] == up && out[0] == pc,
			       "a scanning walk hands over to the chain where they meet, no stale word past it (%zu frames)",
			       n);
		}
	}
	{
		int64_t cfa = 0, ra = 0;
		struct ooms_unwind_rule r = {0};

#if defined(__aarch64__)
		/* arm64: a call leaves the return address in x30, the callee saves it */
		TAP_EQ_INT(ooms_sym_unwind_rule(sym, (uint64_t)&open, &cfa, &ra), -ENOTSUP,
			   "CFI at a function entry: not on the stack (arm64)");
		TAP_EQ_INT(ooms_sym_unwind_at(sym, (uint64_t)&open, &r), 0, "CFI at a function entry (arm64)");
		TAP_OK(r.cfa_from_sp == 0 && r.ra_reg == 30,
		       "at entry CFA = sp + 0 and the return address is in x30 (CFA sp + %lld, register %d)",
		       (long long)r.cfa_from_sp, r.ra_reg);
#else
		TAP_EQ_INT(ooms_sym_unwind_rule(sym, (uint64_t)&open, &cfa, &ra), 0, "CFI at a function entry");
		TAP_OK(cfa == 8 && ra == -8, "at entry CFA = sp + 8 and the return address is at sp");
		TAP_EQ_INT(ooms_sym_unwind_at(sym, (uint64_t)&open, &r), 0, "the same through ooms_sym_unwind_at");
		TAP_OK(r.cfa_from_sp == 8 && r.ra_reg == -1 && r.ra_from_cfa == -8, "on the stack, not in a register");
#endif
		TAP_EQ_INT(ooms_sym_unwind_rule(sym, 0x10, &cfa, &ra), -ENOENT, "no CFI for an unmapped pc");
		TAP_EQ_INT(ooms_sym_unwind_at(sym, 0x10, &r), -ENOENT, "no CFI for an unmapped pc (unwind_at)");
	}
	test_stackfix_lr(sym, fx);
	ooms_stackfix_free(fx);
	ooms_sym_free(sym);
}

/* proc_fd_count: the kernel's count where /proc/PID/fd has a size (6.2+),
 * else the entries counted (the arm64 VM's 6.1 kernel, Android's GKI
 * kernels); either way the number of fds open, without reading a link.
 * A child is counted before and after it opens 37 eventfds (counting our
 * own fds would count the listing's directory fd on older kernels). */
static void test_fd_count(void)
{
	int ready[2], go[2];
	char c;
	struct stat sb;
	pid_t child;
	int64_t before, after;

	if (pipe(ready) || pipe(go)) {
		TAP_OK(0, "pipes for the fd count's child");
		return;
	}
	child = fork();
	if (child == 0) {
		close(ready[0]);
		close(go[1]);
		if (write(ready[1], "a", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < 37; i++)
			if (eventfd(0, 0) < 0)
				_exit(1);
		if (write(ready[1], "b", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	TAP_OK(read(ready[0], &c, 1) == 1, "the child is ready");
	before = proc_fd_count(child);
	TAP_OK(write(go[1], "g", 1) == 1 && read(ready[0], &c, 1) == 1, "the child opened its 37 eventfds");
	after = proc_fd_count(child);
	printf("# /proc/PID/fd has a size here: %s\n",
	       stat("/proc/self/fd", &sb) == 0 && sb.st_size > 0 ? "yes (6.2+)" : "no (counted)");
	TAP_OK(before > 0, "the child's fds before: %lld", (long long)before);
	TAP_EQ_INT(after, before + 37, "its 37 eventfds counted");
	TAP_EQ_INT(after, proc_list(child, "fd", NULL, NULL), "proc_fd_count equals the entries listed");
	close(go[1]);
	waitpid(child, NULL, 0);
	TAP_EQ_INT(proc_fd_count(child), -1, "a reaped child's count cannot be read: -1");
	close(ready[0]);
}

/* proc_dying: a live process is not, a killed one is, before it is reaped and after */
static void test_dying(void)
{
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	TAP_EQ_INT(proc_dying(child), 0, "a live child is not dying");
	kill(child, SIGSTOP);
	waitpid(child, NULL, WUNTRACED);
	TAP_EQ_INT(proc_dying(child), 0, "a stopped child is not dying");
	kill(child, SIGKILL);
	/* a zombie once SIGKILL has ended it (waitid with WNOWAIT leaves it unreaped) */
	TAP_OK(waitid(P_PID, (id_t)child, &(siginfo_t){0}, WEXITED | WNOWAIT) == 0, "the killed child has ended");
	TAP_EQ_INT(proc_dying(child), 1, "a killed child not yet reaped is dying");
	waitpid(child, NULL, 0);
	TAP_EQ_INT(proc_dying(child), 1, "a reaped child is dying (gone)");
}

/* Thread names with their numbers folded, for grouping */
static void test_fold_numbers(void)
{
	static const char *const cases[][2] = {
		{"poller-0", "poller-*"}, {"poller-59", "poller-*"}, {"pool-3-thread-12", "pool-*-thread-*"},
		{"worker-pool", "worker-pool"}, {"Binder:1234_5", "Binder:*_*"}, {"gc-7f3a9c20e1b4", "gc-*"},
		{"deadbeef", "deadbeef"}, {"cafe-2", "cafe-*"}, {"", ""},
		{"/tmp/job-3f2a9c1e-1b2c-4d5e-8f90-123456789abc.tmp", "/tmp/job-*.tmp"},
		{"/tmp/x/stress-open-32289-1007708233 (deleted)", "/tmp/x/stress-open-*-* (deleted)"},
	};
	char out[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		TAP_EQ_STR(text_fold_numbers(out, sizeof(out), cases[i][0]), cases[i][1], "fold \"%s\"", cases[i][0]);
	TAP_EQ_STR(text_fold_numbers(out, 4, "poller-1"), "pol", "folded into a small buffer: cut, terminated");
}

/* The large mappings replayed onto the last maps read (the target gone first) */
static void test_maps_replay(void)
{
	struct ooms_snapshot s;
	struct snap_map start[2] = {{0x100000, 0x200000, "r-xp", "/bin/app"}, {0x7f0000000000, 0x7f0000100000, "rw-p", ""}};
	/* three 1 MiB blocks below the anonymous mapping, top-down as mmap places them,
	 * one freed, one made before the reading (skipped), and a file's range unmapped */
	struct map_change ch[] = {
		{50, 0x7effff000000, 0x100000, 0},
		{200, 0x7effffe00000, 0x200000, 0}, {201, 0x7effffd00000, 0x100000, 0}, {202, 0x7effffc00000, 0x100000, 0},
		{203, 0x7effffd00000, 0x100000, 1}, {204, 0x180000, 0x10000, 1},
	};

	memset(&s, 0, sizeof(s));
	s.maps = malloc(sizeof(start));
	memcpy(s.maps, start, sizeof(start));
	s.nmaps = 2;
	s.maps_ns = 100;
	TAP_EQ_INT(ooms_snapshot_replay_maps(&s, ch, sizeof(ch) / sizeof(ch[0])), 0, "the replay runs");
	TAP_EQ_INT(s.maps_replayed, 5, "the changes after the reading applied, the one before skipped");
	/* the file's mapping cut in two around its hole; the 3 MiB below the
	 * anonymous mapping: 2 MiB joined to it, the block below the freed one apart */
	TAP_EQ_INT(s.nmaps, 4, "four mappings: the file in two pieces, the lone block, the joined run");
	TAP_OK(s.nmaps == 4 && s.maps[0].start == 0x100000 && s.maps[0].end == 0x180000 && s.maps[1].start == 0x190000 &&
		       s.maps[1].end == 0x200000, "the unmapped hole splits the file's mapping");
	TAP_OK(s.nmaps == 4 && s.maps[2].start == 0x7effffc00000 && s.maps[2].end == 0x7effffd00000,
	       "the block below the freed one stands alone");
	TAP_OK(s.nmaps == 4 && s.maps[3].start == 0x7effffe00000 && s.maps[3].end == 0x7f0000100000,
	       "adjacent anonymous blocks joined with the mapping above them, as the kernel joins them");
	ooms_snapshot_free(&s);
}

/* Direct buffers' blocks (attrib_direct.c): the table by address through
 * growth and deletions in any order, reallocations, and direct.json's sums. */
static void test_direct_blocks(void)
{
	enum { N = 20000 };
	struct ooms_symbolizer *sym = ooms_sym_new(getpid());
	struct ooms_attrib *a = ooms_attrib_new(getpid(), ARCH_X86_64, sym);
	static uint64_t addr[N], bytes[N];
	static uint8_t live[N];
	struct ooms_event e;
	uint64_t want = 0, nlive = 0, got_blocks = 0, untracked = 1, seed = 12345;
	char path[] = "/tmp/oomscope-unit-direct.XXXXXX", cmd[256], lines[512];
	int bad = 0, nallocs = N, fd = mkstemp(path);

	memset(&e, 0, sizeof(e));
	e.version = OOMS_EVENT_VERSION;
	e.tid = 1;
	for (int i = 0; i < N; i++) {
		/* addresses 16-aligned and clustered, as malloc gives them */
		addr[i] = 0x7f0000000000ull + (uint64_t)i * 4096 + (i % 7) * 16;
		bytes[i] = 4096 + (uint64_t)(i % 13) * 512;
		e.type = EV_DIRECT_ALLOC;
		e.ret = (int64_t)addr[i];
		e.arg0 = bytes[i];
		e.arg1 = 0;
		e.ts_ns = (uint64_t)i + 1;
		ooms_attrib_event(a, &e);
		live[i] = 1;
	}
	/* free two thirds in a pseudo-random order, reallocate some of the rest */
	for (int k = 0; k < 3 * N; k++) {
		int i;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		i = (int)((seed >> 33) % N);
		if (!live[i])
			continue;
		if (k % 5 == 0) { /* reallocateMemory: a new block in its place */
			e.type = EV_DIRECT_ALLOC;
			e.arg1 = addr[i];
			addr[i] += 0x100000000ull;
			bytes[i] *= 2;
			e.ret = (int64_t)addr[i];
			e.arg0 = bytes[i];
			nallocs++;
		} else {
			e.type = EV_DIRECT_FREE;
			e.ret = (int64_t)addr[i];
			live[i] = 0;
		}
		ooms_attrib_event(a, &e);
	}
	e.type = EV_DIRECT_FREE; /* a block made before attach: not known, nothing changes */
	e.ret = 0x1234560;
	ooms_attrib_event(a, &e);
	for (int i = 0; i < N; i++)
		if (live[i]) {
			want += bytes[i];
			nlive++;
		}
	TAP_OK(ooms_attrib_direct_live(a, &got_blocks, &untracked) == want && got_blocks == nlive && !untracked,
	       "direct blocks: %" PRIu64 " live of %d, their bytes, after frees and reallocations", nlive, N);
	TAP_EQ_INT((int)ooms_attrib_direct_seen(a), nallocs, "every block made counted");
	bad = ooms_attrib_direct_lines(a, 3, lines, sizeof(lines)) != 1;
	TAP_OK(!bad && strstr(lines, " blocks <- (stack not taken)"), "one site (no stacks taken), said: %s", lines);
	close(fd);
	TAP_EQ_INT(ooms_attrib_write_direct(a, 1.5, 1 << 30, path), 0, "direct.json written");
	snprintf(cmd, sizeof(cmd),
		 "jq -e '.live_bytes == %" PRIu64 " and .blocks == %" PRIu64 " and ([.sites[].bytes] | add) == .live_bytes' %s >/dev/null",
		 want, nlive, path);
	TAP_EQ_INT(system(cmd), 0, "direct.json: its sites add up to the live bytes");
	unlink(path);
	ooms_attrib_free(a);
	ooms_sym_free(sym);
}

/* Failure storms on the terminal (failures.c): each group pending once per
 * batch, said at its first failure then at most every 5 s with the count
 * since; a kernel key's count shared out among its groups by what each sent. */
static void test_failure_storms(void)
{
	struct ooms_symbolizer *sym = ooms_sym_new(getpid());
	struct ooms_attrib *a = ooms_attrib_new(getpid(), ARCH_X86_64, sym);
	struct ooms_failures *f = ooms_failures_new(a, ARCH_X86_64);
	struct ooms_event e;
	struct ooms_fail_key k1 = {7, 257, 24, 0};
	size_t idx[8], n;
	uint64_t since = 0, prev = 0;
	const uint64_t s = 1000000000ull;
	int first = 0;

	memset(&e, 0, sizeof(e));
	e.version = OOMS_EVENT_VERSION;
	e.type = EV_CALL_FAIL;
	e.ret = -24; /* EMFILE */
	e.nr = 257;  /* openat */
	for (int i = 0; i < 5; i++) { /* key 7 three times, key 8 twice */
		e.arg1 = (uint64_t)(i < 3 ? 7 : 8) << 32;
		e.ts_ns = (uint64_t)i + 1;
		ooms_failures_event(f, &e, sizeof(e), &first);
	}
	n = ooms_failures_take_pending(f, idx, 8);
	TAP_EQ_INT((int)n, 2, "two groups pending, each once");
	TAP_EQ_INT((int)ooms_failures_take_pending(f, idx + 2, 6), 0, "then none");
	TAP_OK(ooms_failures_say(f, idx[0], 10 * s, 5 * s, 3, &since, &prev) && since == 3 && !prev,
	       "first failure said (3 so far)");
	TAP_OK(!ooms_failures_say(f, idx[0], 12 * s, 5 * s, 900, &since, &prev), "not again within 5 s");
	TAP_OK(ooms_failures_say(f, idx[0], 15 * s, 5 * s, 1000, &since, &prev) && since == 997 && prev == 10 * s,
	       "after 5 s: 997 more since 10 s");
	TAP_OK(!ooms_failures_say(f, idx[0], 30 * s, 5 * s, 1000, &since, &prev), "nothing new: not said");
	/* key 8: the same call, errno and caller (none here), another stack:
	 * the same call site on the terminal, its failures counted in it */
	TAP_OK(!ooms_failures_say(f, idx[1], 17 * s, 5 * s, 2, &since, &prev), "another key, the same site: not within 5 s");
	TAP_OK(ooms_failures_say(f, idx[1], 31 * s, 5 * s, 2, &since, &prev) && since == 2 && prev == 15 * s,
	       "then said as the site's: 2 more since 15 s");
	TAP_EQ_INT((int)ooms_failures_sites(f), 1, "one call site");
	/* the kernel counted 1003 of key 7 (three sent): all its group's, exact */
	ooms_failures_set_count(f, &k1, 1003);
	TAP_EQ_INT((int)ooms_failures_total(f), 1003 + 2, "the key's exact count, the other group's two");
	TAP_OK(!ooms_failures_shared(f, idx[0]) && !ooms_failures_group(f, idx[0])->estimated,
	       "one group to a key: exact, not estimated");
	TAP_EQ_INT((int)ooms_failures_estimate(f, idx[0], 2000), 2000, "its estimate is the key's count");
	ooms_failures_free(f);
	ooms_attrib_free(a);
	ooms_sym_free(sym);
}

int main(void)
{
	test_syscall_tables();
	test_stacks();
	test_fd_kind();
	test_json();
	test_atomic_file();
	test_stackfix();
	test_fd_count();
	test_dying();
	test_maps_replay();
	test_fold_numbers();
	test_direct_blocks();
	test_failure_storms();
	return tap_done();
}
