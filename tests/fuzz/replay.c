/* Replays inputs through a fuzz harness without libFuzzer (the regressions
 * under tests/fuzz/regressions/, in `make test`): each file given is one
 * input. Exits 0 when every input was handled. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = NULL;
		size_t len = 0, cap = 0, n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		do {
			if (len == cap) {
				uint8_t *b = realloc(buf, cap = cap ? cap * 2 : 65536);

				if (!b)
					abort();
				buf = b;
			}
			n = fread(buf + len, 1, cap - len, f);
			len += n;
		} while (n);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	return 0;
}
