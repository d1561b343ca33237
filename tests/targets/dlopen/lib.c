/* libevil.so for hostile.bats: a library whose frames are on the stacks of
 * the fds it opens; the test then garbles the file on disk while it is mapped. */
#include <sys/eventfd.h>

__attribute__((noinline)) int evil_open_fds(int n)
{
	int made = 0;

	for (int i = 0; i < n; i++)
		made += eventfd(0, EFD_CLOEXEC) >= 0;
	return made;
}
