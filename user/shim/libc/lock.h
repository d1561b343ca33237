/* A lock for the shim's threads (no libc, so no pthread_mutex: its layout
 * differs between glibc, bionic and musl): a futex, 0 free, 1 held,
 * 2 held with waiters. */
#ifndef OOMSCOPE_SHIM_LIBC_LOCK_H
#define OOMSCOPE_SHIM_LIBC_LOCK_H

#include <linux/futex.h>
#include "shim/libc/sys.h"

struct shim_lock {
	int v;
};

static inline void shim_lock(struct shim_lock *l)
{
	int c = 0;

	if (__atomic_compare_exchange_n(&l->v, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&l->v, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		sys4(SYS_futex, &l->v, FUTEX_WAIT_PRIVATE, 2, 0);
		c = __atomic_exchange_n(&l->v, 2, __ATOMIC_ACQUIRE);
	}
}

static inline void shim_unlock(struct shim_lock *l)
{
	if (__atomic_exchange_n(&l->v, 0, __ATOMIC_RELEASE) == 2)
		sys3(SYS_futex, &l->v, FUTEX_WAKE_PRIVATE, 1);
}

#endif
