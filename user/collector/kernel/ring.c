/* The one reader of the ring buffer. Its events reach the callback given at
 * coll_k_ring_open (the collector's coll_handle_event), so records flow one
 * way: nothing here calls up into the code that handles them. */
#define _GNU_SOURCE
#include "collector/kernel/kernel_side.h"

#include <errno.h>

#include "collect.skel.h"

int coll_k_ring_open(struct coll_kernel *ks, ring_buffer_sample_fn on_event, void *ctx)
{
	ks->rb = ring_buffer__new(bpf_map__fd(ks->skel->maps.events), on_event, ctx, NULL);
	return ks->rb ? 0 : -errno;
}

int coll_k_read_ring(struct coll_kernel *ks)
{
	if (ks->ring_busy || !ks->rb)
		return -1;
	ks->ring_busy = 1;
	ring_buffer__consume(ks->rb);
	ks->ring_busy = 0;
	return 0;
}

void coll_k_tick(void *ks)
{
	coll_k_read_ring(ks);
}

int coll_k_ring_fd(struct coll_kernel *ks)
{
	return ring_buffer__epoll_fd(ks->rb);
}

struct ring_buffer *coll_k_ring(struct coll_kernel *ks)
{
	return ks->rb;
}
