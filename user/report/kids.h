/* The processes a run's target started, each watched as a run of its own
 * (DIR/children/PID-NAME): listed, and each told in a line, for the page
 * (html.c) and the terminal's story (story.c). */
#ifndef OOMSCOPE_REPORT_KIDS_H
#define OOMSCOPE_REPORT_KIDS_H

#include <stddef.h>
#include <stdint.h>

#define KIDS_MAX 256 /* children listed a directory */

/* The child run directories' names under dir/children, sorted, at most
 * KIDS_MAX (each malloc'd, into names); their number. */
size_t report_kids_list(const char *dir, char **names);
void report_kids_free(char **names, size_t n);

/* One child's run in brief: how it ended ("exited with code 0", or why the
 * watch stopped), its crossings and failing calls. 0, or -1 when its
 * directory is not a run's. */
struct kid_summary {
	char how[256];
	size_t crossings;
	int have_failures;
	uint64_t failures;
};
int report_kid_summary(const char *kdir, struct kid_summary *out);

#endif
