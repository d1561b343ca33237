/* Threads of the shim's own, started with a raw clone: no libc thread
 * structure, no TLS of their own, so they may only run the shim's code
 * (system calls, its allocator): the fork-dump child's watchdog. A thread
 * that calls into the runtime is the runtime's (JVMTI RunAgentThread). */
#define _GNU_SOURCE
#include "shim/libc/shim_libc.h"

#include <sys/mman.h>

/* shim_clone_raw(fn, arg, stack_top): clone(CLONE_VM | CLONE_FS | CLONE_FILES |
 * CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM) onto stack_top; the new
 * thread calls fn(arg) and exits. The new thread's id, or -errno. */
long shim_clone_raw(void (*fn)(void *), void *arg, void *stack_top);

#if defined(__x86_64__)
__asm__(".text\n"
	".globl shim_clone_raw\n"
	".hidden shim_clone_raw\n"
	".type shim_clone_raw,@function\n"
	"shim_clone_raw:\n"
	"	and $-16, %rdx\n"
	"	sub $16, %rdx\n"
	"	mov %rdi, 0(%rdx)\n"
	"	mov %rsi, 8(%rdx)\n"
	"	mov %rdx, %rsi\n"
	"	mov $0x50f00, %edi\n"
	"	xor %edx, %edx\n"
	"	xor %r10d, %r10d\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	pop %rax\n"
	"	pop %rdi\n"
	"	xor %ebp, %ebp\n"
	"	call *%rax\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"	hlt\n"
	"1:	ret\n"
	".size shim_clone_raw, .-shim_clone_raw\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl shim_clone_raw\n"
	".hidden shim_clone_raw\n"
	".type shim_clone_raw,%function\n"
	"shim_clone_raw:\n"
	"	and x2, x2, #-16\n"
	"	stp x0, x1, [x2, #-16]!\n"
	"	mov x1, x2\n"
	"	mov x0, #0x0f00\n"
	"	movk x0, #0x5, lsl #16\n"
	"	mov x2, xzr\n"
	"	mov x3, xzr\n"
	"	mov x4, xzr\n"
	"	mov x8, #220\n"
	"	svc #0\n"
	"	cbnz x0, 1f\n"
	"	ldp x9, x0, [sp], #16\n"
	"	mov x29, xzr\n"
	"	mov x30, xzr\n"
	"	blr x9\n"
	"	mov x0, xzr\n"
	"	mov x8, #93\n"
	"	svc #0\n"
	"1:	ret\n"
	".size shim_clone_raw, .-shim_clone_raw\n");
#else
#error "shim_clone_raw is written for x86_64 and aarch64"
#endif

int shim_thread_start(void (*fn)(void *), void *arg)
{
	size_t size = 256 * 1024;
	uint8_t *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	long r;

	if (stack == MAP_FAILED)
		return -ENOMEM;
	r = shim_clone_raw(fn, arg, stack + size);
	if (r < 0) {
		munmap(stack, size);
		return (int)r;
	}
	return 0; /* its stack stays: the shim's threads live as long as their process */
}
