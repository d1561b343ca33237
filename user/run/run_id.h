/* A run's identity: 32 hex digits, random, written in its start record, so
 * that runs from many machines (two of them both writing runs/app) stay
 * apart in a shared store. A run directory from before ids has one
 * derived from its start record's text (the same text, the same id). */
#ifndef OOMSCOPE_RUN_RUN_ID_H
#define OOMSCOPE_RUN_RUN_ID_H

#include <stddef.h>

#define RUN_ID_LEN 32

/* A fresh id in out (RUN_ID_LEN hex digits and a NUL). */
void run_id_new(char out[RUN_ID_LEN + 1]);
/* The id of a run without one, from its start record's text (len bytes). */
void run_id_derived(const char *text, size_t len, char out[RUN_ID_LEN + 1]);
/* Whether s is an id as run_id_new writes them. */
int run_id_valid(const char *s);

#endif
