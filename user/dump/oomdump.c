#define _GNU_SOURCE
#include "dump/oomdump.h"
#include "shim/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PENDING 8

struct ooms_oomdump {
	const struct ooms_dump_request *rq;
	const struct ooms_fresh_request *arq;
	struct ooms_dump_result res;
	struct ooms_fresh_result ares;
	int notify_efd;
	int cancel[2];
	pthread_t th;
	pthread_mutex_t mu;
	char lines[MAX_PENDING][OOMDUMP_LINE];
	size_t nlines;
	int writing, done, reported, stopped;
	int armed;   /* 1: the shim answered "armed"; 2: said so */
};

static void notify(struct ooms_oomdump *d)
{
	uint64_t one = 1;

	if (write(d->notify_efd, &one, sizeof(one)) < 0) { /* a full counter still wakes the loop */
	}
}

static void on_line(void *ctx, const char *line)
{
	struct ooms_oomdump *d = ctx;

	pthread_mutex_lock(&d->mu);
	if (!strcmp(line, SHIM_ARMED))
		d->armed = d->armed ? d->armed : 1;
	else if (shim_line_is(line, SHIM_STARTED))
		d->writing = 1;
	else if (d->nlines < MAX_PENDING)
		snprintf(d->lines[d->nlines++], OOMDUMP_LINE, "%s", line);
	pthread_mutex_unlock(&d->mu);
	notify(d);
}

static void *arm_main(void *arg)
{
	struct ooms_oomdump *d = arg;
	struct ooms_dump_result res;
	struct ooms_fresh_result ares = {0};

	ooms_dump_armed(d->rq, &res, d->cancel[0], on_line, d);
	if (res.ok && d->arq)
		ooms_fresh_analyze(d->rq->out_path, res.oom_kind, d->arq, &ares);
	pthread_mutex_lock(&d->mu);
	d->res = res;
	d->ares = ares;
	d->done = 1;
	pthread_mutex_unlock(&d->mu);
	notify(d);
	return NULL;
}

struct ooms_oomdump *ooms_oomdump_start(const struct ooms_dump_request *rq, const struct ooms_fresh_request *arq,
					int notify_efd)
{
	struct ooms_oomdump *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->rq = rq;
	d->arq = arq;
	d->notify_efd = notify_efd;
	pthread_mutex_init(&d->mu, NULL);
	if (pipe2(d->cancel, O_CLOEXEC) != 0) {
		free(d);
		return NULL;
	}
	if (pthread_create(&d->th, NULL, arm_main, d) != 0) {
		close(d->cancel[0]);
		close(d->cancel[1]);
		free(d);
		return NULL;
	}
	return d;
}

int ooms_oomdump_newly_armed(struct ooms_oomdump *d)
{
	int now;

	if (!d)
		return 0;
	pthread_mutex_lock(&d->mu);
	now = d->armed == 1;
	if (now)
		d->armed = 2;
	pthread_mutex_unlock(&d->mu);
	return now;
}

size_t ooms_oomdump_lines(struct ooms_oomdump *d, char (*out)[OOMDUMP_LINE], size_t max)
{
	size_t n;

	if (!d)
		return 0;
	pthread_mutex_lock(&d->mu);
	n = d->nlines < max ? d->nlines : max;
	memcpy(out, d->lines, n * OOMDUMP_LINE);
	memmove(d->lines, d->lines + n, (d->nlines - n) * OOMDUMP_LINE);
	d->nlines -= n;
	pthread_mutex_unlock(&d->mu);
	return n;
}

int ooms_oomdump_state(struct ooms_oomdump *d, struct ooms_dump_result *res, struct ooms_fresh_result *ares)
{
	int st = 0;

	if (!d)
		return 0;
	pthread_mutex_lock(&d->mu);
	if (d->done && !d->reported) {
		*res = d->res;
		*ares = d->ares;
		d->reported = 1;
		st = 2;
	} else if (d->writing && !d->done) {
		st = 1;
	}
	pthread_mutex_unlock(&d->mu);
	return st;
}

void ooms_oomdump_stop(struct ooms_oomdump *d, int wait_s)
{
	int writing;

	if (!d || d->stopped)
		return;
	pthread_mutex_lock(&d->mu);
	writing = d->writing && !d->done;
	pthread_mutex_unlock(&d->mu);
	for (int i = 0; writing && i < wait_s * 10; i++) {
		usleep(100 * 1000);
		pthread_mutex_lock(&d->mu);
		writing = !d->done;
		pthread_mutex_unlock(&d->mu);
	}
	if (write(d->cancel[1], "x", 1) < 0) { /* the thread is past listening */
	}
	pthread_join(d->th, NULL);
	d->stopped = 1;
}

int ooms_oomdump_writing(struct ooms_oomdump *d)
{
	int w;

	pthread_mutex_lock(&d->mu);
	w = d->writing && !d->done;
	pthread_mutex_unlock(&d->mu);
	return w;
}

void ooms_oomdump_free(struct ooms_oomdump *d)
{
	if (!d)
		return;
	if (!d->stopped)
		ooms_oomdump_stop(d, 0);
	close(d->cancel[0]);
	close(d->cancel[1]);
	pthread_mutex_destroy(&d->mu);
	free(d);
}
