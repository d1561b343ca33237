/* boot-framework.oat's stand-in (android.bats): the platform's compiled
 * Java, one method. make_oat.sh renames fis_init to the name dex2oat gives
 * its code, "java.io.FileInputStream.<init>", and keeps it only in the
 * MiniDebugInfo (.gnu_debugdata), as an oat file has it; the method is
 * reached through the exported table "oatdata", as ART reaches compiled
 * code through its own tables, never by a dynamic symbol.
 *
 * It makes the openat itself, as bionic's syscall stubs do without touching
 * the frame pointer: glibc's wrapper here does not keep the chain, and the
 * frames above its caller (the app's method) would be lost. */
#include <fcntl.h>

__attribute__((noinline, visibility("hidden"))) int fis_init(const char *path)
{
	long fd;

#if defined(__x86_64__)
	register long r10 __asm__("r10") = 0;

	__asm__ volatile("syscall"
			 : "=a"(fd)
			 : "a"(257L), "D"((long)AT_FDCWD), "S"(path), "d"((long)(O_RDONLY | O_CLOEXEC)), "r"(r10)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x0 __asm__("x0") = AT_FDCWD;
	register long x1 __asm__("x1") = (long)path;
	register long x2 __asm__("x2") = O_RDONLY | O_CLOEXEC;
	register long x3 __asm__("x3") = 0;
	register long x8 __asm__("x8") = 56;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x3), "r"(x8) : "memory");
	fd = x0;
#else
#error "x86_64 or aarch64"
#endif
	return fd < 0 ? -1 : (int)fd;
}

const void *const oatdata[] = {(const void *)fis_init};
