/* map_target: maps large anonymous regions from a named function.
 *   map_target [-k REGIONS] [-s MB] [-u UNMAP] [-r PER_SEC] [-w] [-t SECS]
 * map_big_regions maps k regions of s MB (-r: PER_SEC a second, a steady
 * address-space leak); unmap_some_regions unmaps the first u. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go, stop;
static void on_usr1(int s) { (void)s; go = 1; }
static void on_stop(int s) { (void)s; stop = 1; }
static char **regions;

/* Regions [from, to). */
__attribute__((noinline)) int map_big_regions(int from, int to, size_t bytes)
{
	int made = 0;

	for (int i = from; i < to; i++) {
		regions[i] = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (regions[i] == MAP_FAILED) {
			regions[i] = NULL;
			continue;
		}
		regions[i][0] = 1; /* touch one page */
		made++;
	}
	return made;
}

__attribute__((noinline)) int unmap_some_regions(int u, size_t bytes)
{
	int done = 0;

	for (int i = 0; i < u; i++) {
		if (regions[i] && munmap(regions[i], bytes) == 0) {
			regions[i] = NULL;
			done++;
		}
	}
	return done;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int k = 8, mb = 16, u = 3, wait = 0, secs = 60, rate = 0, c, mapped = 0, unmapped;
	size_t bytes;
	time_t end;

	while ((c = getopt(argc, argv, "k:s:u:r:wt:")) != -1) {
		switch (c) {
		case 'k': k = atoi(optarg); break;
		case 's': mb = atoi(optarg); break;
		case 'u': u = atoi(optarg); break;
		case 'r': rate = atoi(optarg); break;
		case 'w': wait = 1; break;
		case 't': secs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: map_target [-k REGIONS] [-s MB] [-u UNMAP] [-r PER_SEC] [-w] [-t SECS]\n");
			return 2;
		}
	}
	if (k < 0 || mb <= 0 || u < 0 || u > k || secs <= 0 || rate < 0) {
		fprintf(stderr, "map_target: bad option value\n");
		return 2;
	}
	bytes = (size_t)mb << 20;
	regions = calloc(k + 1, sizeof(*regions));
	signal(SIGUSR1, on_usr1);
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	end = time(NULL) + secs;
	if (wait) {
		printf("waiting pid=%d\n", (int)getpid());
		fflush(stdout);
		while (!go && !stop && time(NULL) < end)
			sleep_ms(10);
	}
	if (rate) {
		printf("mapping pid=%d\n", (int)getpid());
		fflush(stdout);
	}
	/* -r: in 10 steps a second */
	for (int done = 0; done < k && !stop && time(NULL) < end;) {
		int step = rate ? (rate + 9) / 10 : k;

		if (step > k - done)
			step = k - done;
		mapped += map_big_regions(done, done + step, bytes);
		done += step;
		if (rate)
			sleep_ms(100);
	}
	unmapped = unmap_some_regions(u, bytes);
	printf("ready pid=%d\n", (int)getpid());
	printf("mapped=%d unmapped=%d bytes_each=%zu\n", mapped, unmapped, bytes);
	for (int i = 0; i < k; i++)
		if (regions[i])
			printf("region %p %zu\n", (void *)regions[i], bytes);
	fflush(stdout);
	while (!stop && time(NULL) < end)
		sleep_ms(20);
	return 0;
}
