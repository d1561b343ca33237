/* The one reader of the ring buffer. Its events reach coll_handle_event
 * (coll_events.c) through the callback libbpf was given where the ring
 * buffer was made (collector.c), so records flow one way: nothing here
 * calls up into the code that handles them. */
#define _GNU_SOURCE
#include "collector/coll.h"

/* Reads what the ring buffer holds, unless it is being read already (a
 * snapshot taken while handling an event ticks back here): 0, or -1 when
 * it was not read. */
int coll_read_ring(struct coll *c)
{
	if (c->ring_busy || !c->rb)
		return -1;
	c->ring_busy = 1;
	ring_buffer__consume(c->rb);
	c->ring_busy = 0;
	return 0;
}

void coll_consume_ring(void *ctx)
{
	coll_read_ring(ctx);
}

