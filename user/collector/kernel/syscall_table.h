/* Per-architecture syscall numbers of the calls the collector follows,
 * turned into the nr -> class table the BPF program reads. */
#ifndef OOMSCOPE_SYSCALL_TABLE_H
#define OOMSCOPE_SYSCALL_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum ooms_arch { ARCH_X86_64, ARCH_ARM64 };

/* Fill classes[OOMS_NR_SLOTS]: native numbers of arch, and for arm64 the
 * 32-bit (arm EABI) numbers at OOMS_COMPAT_BASE + nr. */
void ooms_syscall_classes(enum ooms_arch arch, uint8_t *classes);

/* Name of a syscall slot (as in events' nr), or "?" */
const char *ooms_syscall_name(enum ooms_arch arch, uint32_t slot);
/* The native syscall named name's number on arch, or 0 when not followed. */
uint32_t ooms_syscall_nr(enum ooms_arch arch, const char *name);

enum ooms_arch ooms_host_arch(void);

/* The i-th followed native syscall of arch: its name, or NULL past the end. */
const char *ooms_syscall_nth(enum ooms_arch arch, unsigned i);
/* The kernel function that handles syscall name on arch ("__x64_sys_openat"). */
void ooms_syscall_handler(enum ooms_arch arch, const char *name, char *out, size_t len);

#endif
