#define _GNU_SOURCE
#include "run/run_id.h"
#include "util/hash.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static void hex(const uint64_t w[2], char out[RUN_ID_LEN + 1])
{
	snprintf(out, RUN_ID_LEN + 1, "%016llx%016llx", (unsigned long long)w[0], (unsigned long long)w[1]);
}

void run_id_new(char out[RUN_ID_LEN + 1])
{
	uint64_t w[2];

	if (getrandom(w, sizeof(w), 0) != (ssize_t)sizeof(w)) {
		/* no entropy call (an old kernel): the clock, the PID and the stack's address */
		struct timespec ts;
		uint64_t seed[4];

		clock_gettime(CLOCK_REALTIME, &ts);
		seed[0] = (uint64_t)ts.tv_sec;
		seed[1] = (uint64_t)ts.tv_nsec;
		seed[2] = (uint64_t)getpid();
		seed[3] = (uint64_t)(uintptr_t)&ts;
		w[0] = fnv1a(FNV1A_BASIS, seed, sizeof(seed));
		w[1] = fnv1a(0x84222325cbf29ce4ull, seed, sizeof(seed));
	}
	hex(w, out);
}

void run_id_derived(const char *text, size_t len, char out[RUN_ID_LEN + 1])
{
	/* two bases: 128 bits */
	uint64_t w[2] = {fnv1a(FNV1A_BASIS, text, len), fnv1a(0x84222325cbf29ce4ull, text, len)};

	hex(w, out);
}

int run_id_valid(const char *s)
{
	if (!s || strlen(s) != RUN_ID_LEN)
		return 0;
	return strspn(s, "0123456789abcdef") == RUN_ID_LEN;
}
