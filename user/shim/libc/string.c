/* The string and number functions the shim uses, its own (no libc).
 * Built with -ffreestanding -fno-tree-loop-distribute-patterns, so that the
 * compiler does not turn these loops into calls of themselves. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *memcpy(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

	/* word at a time where both are aligned alike: the child copies a lot */
	if ((((uintptr_t)dp ^ (uintptr_t)sp) & 7) == 0) {
		while (n && ((uintptr_t)dp & 7)) {
			*dp++ = *sp++;
			n--;
		}
		for (; n >= 8; n -= 8, dp += 8, sp += 8)
			*(uint64_t *)(void *)dp = *(const uint64_t *)(const void *)sp;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

	if (dp == sp || n == 0)
		return d;
	if (dp < sp || dp >= sp + n)
		return memcpy(d, s, n);
	while (n--)
		dp[n] = sp[n];
	return d;
}

void *memset(void *d, int c, size_t n)
{
	uint8_t *dp = d;

	if (n >= 16) {
		uint64_t w = (uint8_t)c * 0x0101010101010101ull;

		while ((uintptr_t)dp & 7) {
			*dp++ = (uint8_t)c;
			n--;
		}
		for (; n >= 8; n -= 8, dp += 8)
			*(uint64_t *)(void *)dp = w;
	}
	while (n--)
		*dp++ = (uint8_t)c;
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] - y[i];
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const uint8_t *p = s;

	for (size_t i = 0; i < n; i++)
		if (p[i] == (uint8_t)c)
			return (void *)(p + i);
	return NULL;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (uint8_t)*a - (uint8_t)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++)
		if (*a != *b || !*a)
			return (uint8_t)*a - (uint8_t)*b;
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;

	while (s[n] && strchr(accept, s[n]))
		n++;
	return n;
}

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;

	while (s[n] && !strchr(reject, s[n]))
		n++;
	return n;
}

char *strstr(const char *h, const char *n)
{
	size_t k = strlen(n);

	for (; *h; h++)
		if (!strncmp(h, n, k))
			return (char *)h;
	return k ? NULL : (char *)h;
}

char *strtok_r(char *s, const char *delim, char **save)
{
	char *t;

	if (!s)
		s = *save;
	s += strspn(s, delim);
	if (!*s) {
		*save = s;
		return NULL;
	}
	t = s + strcspn(s, delim);
	if (*t)
		*t++ = 0;
	*save = t;
	return s;
}

char *strndup(const char *s, size_t n)
{
	size_t k = strnlen(s, n);
	char *d = malloc(k + 1);

	if (d) {
		memcpy(d, s, k);
		d[k] = 0;
	}
	return d;
}

char *strdup(const char *s)
{
	return strndup(s, (size_t)-1);
}

static int digit(int c, int base)
{
	int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 : c >= 'A' && c <= 'Z' ? c - 'A' + 10 : 99;

	return v < base ? v : -1;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
	unsigned long long v = 0;
	const char *p = s;
	int neg = 0, d, any = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && digit(p[2], 16) >= 0)
		p += 2, base = 16;
	else if (base == 0)
		base = p[0] == '0' ? 8 : 10;
	for (; (d = digit((uint8_t)*p, base)) >= 0; p++, any = 1)
		v = v * (unsigned)base + (unsigned)d;
	if (end)
		*end = (char *)(any ? p : s);
	return neg ? -v : v;
}

unsigned long strtoul(const char *s, char **end, int base) { return (unsigned long)strtoull(s, end, base); }
long long strtoll(const char *s, char **end, int base) { return (long long)strtoull(s, end, base); }
long strtol(const char *s, char **end, int base) { return (long)strtoull(s, end, base); }
int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
long atol(const char *s) { return strtol(s, NULL, 10); }

char *strerror(int e)
{
	static const struct {
		int e;
		const char *s;
	} t[] = {
		{EPERM, "Operation not permitted"}, {ENOENT, "No such file or directory"}, {ESRCH, "No such process"},
		{EINTR, "Interrupted system call"}, {EIO, "Input/output error"}, {EBADF, "Bad file descriptor"},
		{EAGAIN, "Resource temporarily unavailable"}, {ENOMEM, "Cannot allocate memory"},
		{EACCES, "Permission denied"}, {EEXIST, "File exists"}, {ENOTDIR, "Not a directory"},
		{EISDIR, "Is a directory"}, {EINVAL, "Invalid argument"}, {ENFILE, "Too many open files in system"},
		{EMFILE, "Too many open files"}, {ENOSPC, "No space left on device"}, {EPIPE, "Broken pipe"},
		{ERANGE, "Numerical result out of range"}, {EDEADLK, "Resource deadlock avoided"},
		{ENAMETOOLONG, "File name too long"}, {ENOSYS, "Function not implemented"},
		{ETIMEDOUT, "Connection timed out"}, {EADDRINUSE, "Address already in use"},
		{ECONNREFUSED, "Connection refused"}, {EBADMSG, "Bad message"}, {ECANCELED, "Operation canceled"},
		{E2BIG, "Argument list too long"}, {ELOOP, "Too many levels of symbolic links"},
		{EROFS, "Read-only file system"}, {EXDEV, "Invalid cross-device link"}, {ECHILD, "No child processes"},
	};
	static char other[32];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return (char *)t[i].s;
	snprintf(other, sizeof(other), "error %d", e);
	return other;
}
