/* The monotonic clock in the units callers want: durations, deadlines and
 * event times (the BPF side's bpf_ktime_get_ns is the same clock). */
#ifndef OOMSCOPE_UTIL_CLOCK_H
#define OOMSCOPE_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double mono_s(void)
{
	return (double)mono_ns() / 1e9;
}

static inline double mono_ms(void)
{
	return (double)mono_ns() / 1e6;
}

#endif
