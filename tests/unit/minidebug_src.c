/* Input of make_minidebuginfo.sh: named functions that, once the binary is
 * stripped, only .gnu_debugdata (MiniDebugInfo) can name. */
#include <stdio.h>

volatile int md_sink;

__attribute__((noinline)) int md_alpha(int x)
{
	for (int i = 0; i < x; i++)
		md_sink += i * 3;
	return md_sink;
}

__attribute__((noinline)) int md_beta(int x)
{
	for (int i = 0; i < x; i++)
		md_sink ^= md_alpha(i) + 7;
	return md_sink;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", md_beta(argc));
	return 0;
}
