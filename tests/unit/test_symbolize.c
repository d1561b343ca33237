/* Unit tests of user/sym/symbolize.c against this very process, libc, a
 * MiniDebugInfo binary and corrupt ELF files.
 *
 * Usage: test_symbolize [MINIDEBUG_ELF]
 *   MINIDEBUG_ELF: the "minidebug" file written by
 *   tests/unit/make_minidebuginfo.sh OUT_DIR (with MINIDEBUG_ELF.syms next to
 *   it). Without it, the one make built (MINIDEBUG_DIR). */
#define _GNU_SOURCE
#include "sym/demangle.h"
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sym/perfmap.h"
#include "sym/symbolize.h"
#include "tap.h"

volatile int probe_sink;
static uint64_t probe_ra;

__attribute__((noinline)) int sym_probe_target(int x)
{
	probe_ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
	probe_sink += x;
	return probe_sink * 3;
}

/* The "+ 1" after the call keeps it a call (no tail jump), so probe_ra is a
 * return address inside this function. */
__attribute__((noinline)) int sym_probe_caller(int x)
{
	return sym_probe_target(x) + 1;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

/* Build-id of the main program, read from its PT_NOTE in memory: an
 * independent check of what the symbolizer reads from the file. */
static int main_build_id_cb(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end;

		if (ph->p_type != PT_NOTE)
			continue;
		for (end = p + ph->p_memsz; p + sizeof(ElfW(Nhdr)) <= end;) {
			const ElfW(Nhdr) *nh = (const void *)p;
			size_t al = ph->p_align == 8 ? 8 : 4;
			const char *name = p + sizeof(*nh);
			const unsigned char *desc =
				(const void *)(name + ((nh->n_namesz + al - 1) & ~(al - 1)));

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz <= 64) {
				for (unsigned j = 0; j < nh->n_descsz; j++)
					sprintf((char *)out + 2 * j, "%02x", desc[j]);
				return 1;
			}
			p = (const char *)desc + ((nh->n_descsz + al - 1) & ~(al - 1));
		}
	}
	return 1;       /* the first object is the main program: stop */
}

static void test_self(struct ooms_symbolizer *s)
{
	struct ooms_frame f;
	char exe[4096], bid[129] = "";
	uint64_t a = (uint64_t)(uintptr_t)&sym_probe_target;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	TAP_EQ_INT(ooms_sym_resolve(s, a + 3, 0, &f), 0, "resolve own function");
	TAP_EQ_STR(f.module, exe, "module is the test binary");
	TAP_EQ_STR(f.symbol, "sym_probe_target", "own function name");
	TAP_EQ_INT(f.sym_offset, 3, "own function sym_offset");
	TAP_EQ_INT(f.addr, a + 3, "frame keeps the captured address");
	TAP_EQ_INT(f.offset, a + 3 - f.base, "offset = addr - base");
	TAP_OK(f.base <= a && (f.base & 0xfff) == 0, "base 0x%" PRIx64 " is page-aligned, below", f.base);

	dl_iterate_phdr(main_build_id_cb, bid);
	TAP_OK(bid[0] != '\0', "test binary has a build-id in memory");
	TAP_EQ_STR(f.build_id, bid, "build-id read from the file matches memory");

	TAP_EQ_INT(ooms_sym_is_exec(s, a), 1, "function address is executable");
	TAP_EQ_INT(ooms_sym_is_exec(s, (uint64_t)(uintptr_t)&f), 0, "stack is not executable");
}

static void test_return_addr(struct ooms_symbolizer *s)
{
	struct ooms_frame f;
	uint64_t a = (uint64_t)(uintptr_t)&sym_probe_target;
	unsigned char code[8];
#if defined(__x86_64__)
	const int callsz = 5;   /* call rel32 */
#else
	const int callsz = 4;   /* bl */
#endif
	sym_probe_caller(1);
	TAP_EQ_INT(ooms_sym_resolve(s, probe_ra, 1, &f), 0, "resolve a real return address");
	TAP_EQ_STR(f.symbol, "sym_probe_caller", "return address names the caller");
	TAP_OK(f.sym_offset > 0, "sym_offset %" PRIu64 " of the return address", f.sym_offset);

	/* the function's first byte as a return address means "the call was
	 * just before": that is not sym_probe_target */
	TAP_EQ_INT(ooms_sym_resolve(s, a, 1, &f), 0, "resolve function start as return address");
	TAP_OK(!f.symbol || strcmp(f.symbol, "sym_probe_target") != 0,
	       "return address at a function start looks up addr-1 (got %s)", f.symbol ? f.symbol : "none");
	TAP_EQ_INT(ooms_sym_resolve(s, a + 1, 1, &f), 0, "resolve start+1 as return address");
	TAP_EQ_STR(f.symbol, "sym_probe_target", "start+1 as return address is the function");
	TAP_EQ_INT(f.sym_offset, 1, "sym_offset is relative to the captured address");

	/* read_code reads the file; the code mapped in memory is the same bytes */
	TAP_EQ_INT(ooms_sym_read_code(s, probe_ra - callsz, code, callsz), callsz,
		   "read_code returns the call instruction bytes");
	TAP_OK(memcmp(code, (const void *)(uintptr_t)(probe_ra - callsz), callsz) == 0,
	       "read_code bytes equal the code in memory");
}

static void test_libc(struct ooms_symbolizer *s)
{
	struct ooms_frame f;
	void *p = dlsym(RTLD_DEFAULT, "eventfd");
	uint64_t a = (uint64_t)(uintptr_t)p;

	TAP_OK(p != NULL, "dlsym(eventfd)");
	TAP_EQ_INT(ooms_sym_resolve(s, a + 4, 0, &f), 0, "resolve eventfd+4");
	TAP_OK(f.module && strncmp(base_name(f.module), "libc", 4) == 0,
	       "module %s is libc", f.module ? f.module : "(null)");
	/* Debian's libc.so.6 has only .dynsym, where eventfd has no alias */
	TAP_EQ_STR(f.symbol, "eventfd", "libc symbol name");
	TAP_EQ_INT(f.sym_offset, 4, "libc sym_offset");
	TAP_OK(f.build_id && strlen(f.build_id) >= 16, "libc build-id %s", f.build_id ? f.build_id : "(null)");
}

static void test_unmapped(struct ooms_symbolizer *s)
{
	struct ooms_frame f;
	unsigned char c;
	void *page;

	TAP_EQ_INT(ooms_sym_resolve(s, 8, 0, &f), -ENOENT, "unmapped address: -ENOENT");
	TAP_OK(f.module == NULL && f.symbol == NULL && f.addr == 8, "unmapped frame is empty");
	TAP_EQ_INT(ooms_sym_resolve(s, 0, 1, &f), -ENOENT, "return address 0: -ENOENT");
	TAP_EQ_INT(ooms_sym_is_exec(s, 8), 0, "unmapped is not executable");
	TAP_EQ_INT(ooms_sym_read_code(s, 8, &c, 1), -ENOENT, "read_code unmapped: -ENOENT");

	/* a mapping made after ooms_sym_new appears after ooms_sym_refresh */
	page = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TAP_OK(page != MAP_FAILED, "mmap an executable anonymous page");
	TAP_EQ_INT(ooms_sym_resolve(s, (uint64_t)(uintptr_t)page + 16, 0, &f), -ENOENT,
		   "new mapping unknown before refresh");
	TAP_EQ_INT(ooms_sym_refresh(s), 0, "refresh");
	TAP_EQ_INT(ooms_sym_resolve(s, (uint64_t)(uintptr_t)page + 16, 0, &f), 0,
		   "new mapping known after refresh");
	TAP_OK(f.module == NULL && f.symbol == NULL, "anonymous mapping: no module, no symbol");
	TAP_EQ_INT(ooms_sym_is_exec(s, (uint64_t)(uintptr_t)page), 1, "anonymous r-x page is executable");
	TAP_OK(ooms_sym_read_code(s, (uint64_t)(uintptr_t)page, &c, 1) < 0,
	       "read_code of anonymous memory fails");
	munmap(page, 4096);

	/* symbols loaded before the refresh are still there (and strings valid) */
	TAP_EQ_INT(ooms_sym_resolve(s, (uint64_t)(uintptr_t)&sym_probe_target, 0, &f), 0,
		   "resolve after refresh");
	TAP_EQ_STR(f.symbol, "sym_probe_target", "symbol after refresh");
}

static void test_format(void)
{
	struct ooms_frame f = {
		.addr = 0x7f1234567890, .module = "/usr/lib/x86_64-linux-gnu/libc.so.6",
		.base = 0x7f1234500000, .offset = 0x67890, .symbol = "eventfd", .sym_offset = 16,
	};
	char buf[256];
	const char *want = "libc.so.6 0x7f1234567890 0x7f1234500000 + 424080 eventfd+16";

	TAP_EQ_INT(ooms_frame_format(&f, buf, sizeof(buf)), strlen(want), "format returns the length");
	TAP_EQ_STR(buf, want, "format with symbol");
	f.symbol = NULL;
	ooms_frame_format(&f, buf, sizeof(buf));
	TAP_EQ_STR(buf, "libc.so.6 0x7f1234567890 0x7f1234500000 + 424080 libc.so.6+0x67890", "format without symbol: module+0xOFFSET");
	f.module = NULL;
	ooms_frame_format(&f, buf, sizeof(buf));
	TAP_EQ_STR(buf, "[unknown] 0x7f1234567890", "format without module");
	TAP_EQ_INT(ooms_frame_format(&f, buf, 5), -ENOSPC, "format into a short buffer: -ENOSPC");
	TAP_EQ_INT(strlen(buf), 4, "short buffer stays terminated");
}

/* 1 if path has a section of the given type / name. */
static int has_section(const char *path, unsigned type, const char *name)
{
	int fd = open(path, O_RDONLY), found = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				break;
			n = elf_strptr(elf, shstrndx, sh.sh_name);
			found = sh.sh_type == type && (!name || (n && !strcmp(n, name)));
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static void test_minidebuginfo(const char *elf)
{
	char syms[4200], name[128], got[128];
	uint64_t vaddr, off;
	FILE *f;
	int n = 0;

	snprintf(syms, sizeof(syms), "%s.syms", elf);
	f = fopen(syms, "r");
	TAP_OK(f != NULL, "open %s", syms);
	if (!f)
		return;
	TAP_EQ_INT(has_section(elf, SHT_SYMTAB, NULL), 0, "stripped binary has no .symtab");
	TAP_EQ_INT(has_section(elf, SHT_PROGBITS, ".gnu_debugdata"), 1, "it has .gnu_debugdata");
	while (fscanf(f, "%127s %" SCNx64, name, &vaddr) == 2) {
		n++;
		got[0] = '\0';
		off = 99;
		TAP_EQ_INT(ooms_sym_elf_lookup(elf, vaddr + 2, got, sizeof(got), &off), 0,
			   "elf_lookup %s+2 (0x%" PRIx64 ")", name, vaddr + 2);
		TAP_EQ_STR(got, name, "name from .gnu_debugdata");
		TAP_EQ_INT(off, 2, "sym_offset from .gnu_debugdata");
	}
	fclose(f);
	TAP_EQ_INT(n, 2, "two functions listed in %s", syms);
}

static void test_corrupt(const char *self)
{
	char path[] = "/tmp/test_symbolize.XXXXXX", name[64];
	unsigned char buf[4096];
	uint64_t off;
	int fd = mkstemp(path), src;
	ssize_t n;

	TAP_OK(fd >= 0, "temp file");
	if (fd < 0)
		return;
	srand(42);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	TAP_EQ_INT(write(fd, buf, sizeof(buf)), sizeof(buf), "write random bytes");
	TAP_OK(ooms_sym_elf_lookup(path, 0x1000, name, sizeof(name), &off) < 0, "random bytes: error");

	/* a real ELF header followed by garbage: sections point past the end */
	src = open(self, O_RDONLY);
	n = src >= 0 ? read(src, buf, 64) : -1;
	if (src >= 0)
		close(src);
	TAP_EQ_INT(n, 64, "read own ELF header");
	TAP_OK(ftruncate(fd, 0) == 0 && pwrite(fd, buf, 64, 0) == 64, "write truncated ELF");
	TAP_OK(ooms_sym_elf_lookup(path, 0x1000, name, sizeof(name), &off) < 0, "truncated ELF: error");

	/* header + section headers pointing at random data */
	memset(buf + 64, 0xa5, sizeof(buf) - 64);
	TAP_OK(pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf), "write ELF header + junk");
	TAP_OK(ooms_sym_elf_lookup(path, 0x1000, name, sizeof(name), &off) < 0, "junk ELF: error");
	close(fd);
	unlink(path);

	TAP_EQ_INT(ooms_sym_elf_lookup("/nonexistent/x", 0, name, sizeof(name), &off), -ENOENT,
		   "missing file: -ENOENT");
	TAP_OK(ooms_sym_elf_lookup("/dev/null", 0, name, sizeof(name), &off) < 0, "device: error");
}

static struct ooms_perfmap *perfmap_of(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct ooms_perfmap *pm = NULL;

	if (!f || ooms_perfmap_read(f, &pm) != 0)
		pm = NULL;
	if (f)
		fclose(f);
	return pm;
}

/* A JIT's perf map: HotSpot's lines, hostile ones, overlaps; the names it
 * gives anonymous code through the symbolizer. */
static void test_perfmap(void)
{
	char longname[3000], method[512], text[4096], line[8192];
	struct ooms_perfmap *pm;
	uint64_t start = 0;
	const char *n;

	pm = perfmap_of("0x00007f9578ec71c0 0x0000000000000270 java.lang.Object jdk.internal.misc.Unsafe.get(java.lang.Object, long)\n"
			"7f9578940b80 17de0 Interpreter\n"
			"not a line at all\n"
			"0x1000 0x0 zero-sized\n"
			"0xffffffffffffff00 0x200 wraps around\n"
			"0x12345678901234567 0x10 too many digits\n"
			"0x5000 0x100 old\n"
			"0x5000 0x80 new\n"
			"0x6000 0x1000 first\n"
			"0x6800 0x10 inside\n"
			"0x9000 0x10 no newline at the end");
	TAP_OK(pm != NULL, "perf map: read");
	TAP_EQ_INT((int)ooms_perfmap_count(pm), 6, "perf map: the six good blocks kept, one per start");
	n = ooms_perfmap_find(pm, 0x7f9578ec71c0 + 0x26f, &start);
	TAP_EQ_STR(n, "java.lang.Object jdk.internal.misc.Unsafe.get(java.lang.Object, long)", "perf map: a method's last byte");
	TAP_OK(start == 0x7f9578ec71c0, "perf map: its start");
	TAP_OK(ooms_perfmap_find(pm, 0x7f9578ec71c0 + 0x270, NULL) == NULL, "perf map: the byte after it is none's");
	TAP_EQ_STR(ooms_perfmap_find(pm, 0x7f9578940b80, NULL), "Interpreter", "perf map: without 0x");
	TAP_EQ_STR(ooms_perfmap_find(pm, 0x5010, NULL), "new", "perf map: the later of two at one start");
	TAP_OK(ooms_perfmap_find(pm, 0x5090, NULL) == NULL, "perf map: ... with its own size");
	TAP_EQ_STR(ooms_perfmap_find(pm, 0x67ff, NULL), "first", "perf map: a block before the one inside it");
	TAP_EQ_STR(ooms_perfmap_find(pm, 0x6805, NULL), "inside", "perf map: the block inside");
	TAP_OK(ooms_perfmap_find(pm, 0x6900, NULL) == NULL, "perf map: the outer block ends where the inner begins");
	TAP_EQ_STR(ooms_perfmap_find(pm, 0x9000, NULL), "no newline at the end", "perf map: a last line without a newline");
	TAP_OK(ooms_perfmap_find(pm, 0x1000, NULL) == NULL && ooms_perfmap_find(pm, 0xffffffffffffff10ull, NULL) == NULL,
	       "perf map: zero-sized and wrapping blocks skipped");
	ooms_perfmap_free(pm);

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	snprintf(line, sizeof(line), "0x100 0x10 %s\n", longname);
	pm = perfmap_of(line);
	n = ooms_perfmap_find(pm, 0x100, NULL);
	TAP_OK(n && strlen(n) == 1024, "perf map: a name cut at 1 KiB");
	ooms_perfmap_free(pm);
	pm = perfmap_of("");
	TAP_OK(pm && !ooms_perfmap_count(pm) && !ooms_perfmap_find(pm, 0, NULL), "perf map: an empty file");
	ooms_perfmap_free(pm);

	TAP_EQ_INT(ooms_perfmap_kind("void PollerApp.startPoller(int)", method, sizeof(method)), OOMS_PM_METHOD,
		   "perf map: a compiled method");
	TAP_EQ_STR(method, "PollerApp.startPoller(int)", "perf map: ... named without its return type");
	TAP_EQ_INT(ooms_perfmap_kind("java.lang.Object jdk.internal.misc.Unsafe.get(java.lang.Object, long)", method,
				     sizeof(method)), OOMS_PM_METHOD, "perf map: arguments with spaces");
	TAP_EQ_STR(method, "jdk.internal.misc.Unsafe.get(java.lang.Object, long)", "perf map: ... kept whole");
	TAP_EQ_INT(ooms_perfmap_kind("Interpreter", method, sizeof(method)), OOMS_PM_INTERPRETER, "perf map: the interpreter");
	TAP_EQ_INT(ooms_perfmap_kind("StubRoutines (1)", method, sizeof(method)), OOMS_PM_OTHER, "perf map: a stub");
	TAP_EQ_INT(ooms_perfmap_kind("I2C/C2I adapters(0xbe)", method, sizeof(method)), OOMS_PM_OTHER, "perf map: adapters");

	/* anonymous executable memory of our own, named by a map */
	{
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		uint8_t *code = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct ooms_symbolizer *s = ooms_sym_new(getpid());
		struct ooms_frame f;

		TAP_OK(code != MAP_FAILED && s, "perf map: an anonymous code page");
		if (code == MAP_FAILED || !s)
			return;
		snprintf(line, sizeof(line), "%" PRIx64 " 40 void a.B.c(int)\n", (uint64_t)(uintptr_t)code);
		ooms_sym_set_perfmap(s, perfmap_of(line));
		TAP_OK(ooms_sym_has_perfmap(s), "perf map: set");
		TAP_EQ_INT(ooms_sym_resolve(s, (uint64_t)(uintptr_t)code + 0x11, 1, &f), 0, "perf map: resolved");
		TAP_OK(f.jit && !f.module && f.symbol && !strcmp(f.symbol, "void a.B.c(int)") && f.sym_offset == 0x11,
		       "perf map: the frame named by it, jit, its offset");
		ooms_frame_format(&f, text, sizeof(text));
		snprintf(line, sizeof(line), "[jit] 0x%" PRIx64 " void a.B.c(int)+17", (uint64_t)(uintptr_t)code + 0x11);
		TAP_EQ_STR(text, line, "perf map: the frame's text");
		/* a newer map replaces it; the old names stay valid */
		ooms_sym_set_perfmap(s, perfmap_of("0x10 0x10 elsewhere\n"));
		TAP_EQ_INT(ooms_sym_resolve(s, (uint64_t)(uintptr_t)code + 0x11, 1, &f), 0, "perf map: resolved again");
		TAP_OK(!f.jit && !f.symbol, "perf map: a newer map without the block names nothing there");
		TAP_EQ_STR(text, line, "perf map: the old frame's text still readable");
		ooms_sym_free(s);
		munmap(code, page);
	}
}

static void test_demangle(void)
{
	char buf[64], tiny[4];
	const char *longer = "_ZN3art7HashSetISt4pairIjtENS_3dex15DexFileVerifier20OffsetTypeMapEmptyFnENS_14HashMapWrapperINS4_"
			     "26OffsetTypeMapHashCompareFnEEES8_SaIS2_EE6ResizeEm";
	const char *d;

	TAP_EQ_STR(ooms_demangle("_ZL11build_indexv", buf, sizeof(buf)), "build_index()", "demangled");
	TAP_EQ_STR(ooms_demangle("main", buf, sizeof(buf)), "main", "a C name as it is");
	d = ooms_demangle(longer, buf, sizeof(buf));
	TAP_OK(d == buf && strlen(d) == sizeof(buf) - 1 && !strncmp(d, "art::HashSet<std::pair<", 23) &&
		       !strcmp(d + strlen(d) - 3, "..."),
	       "a name longer than the buffer: demangled, cut with '...' (%s)", d);
	TAP_OK(ooms_demangle(longer, tiny, sizeof(tiny)) == longer, "a buffer under 8 bytes: the name as it is");
}

int main(int argc, char **argv)
{
	struct ooms_symbolizer *s = ooms_sym_new(getpid());

	TAP_OK(s != NULL, "ooms_sym_new(self)");
	if (!s)
		return tap_done();
	test_self(s);
	test_return_addr(s);
	test_libc(s);
	test_unmapped(s);
	ooms_sym_free(s);
	TAP_OK(ooms_sym_new(-5) == NULL && errno == ENOENT, "ooms_sym_new(bad pid) fails");

	test_format();
	test_demangle();
	test_corrupt("/proc/self/exe");
	test_perfmap();

	if (argc > 1) {
		test_minidebuginfo(argv[1]);
	} else if (access(MINIDEBUG_DIR "/minidebug", R_OK) == 0) {
		test_minidebuginfo(MINIDEBUG_DIR "/minidebug"); /* built by make */
	} else {
		TAP_OK(0, "%s/minidebug missing: make unit builds it", MINIDEBUG_DIR);
	}
	return tap_done();
}
