/* Bytes as a person reads them (units.h). */
#include "util/units.h"

#include <math.h>
#include <stdio.h>

char *units_bytes(double bytes, char *buf, size_t len)
{
	static const char *const names[] = {"KB", "MB", "GB", "TB"};
	double v = fabs(bytes);
	int k = -1;

	while (v >= 1024 && k < 3) {
		v /= 1024;
		k++;
	}
	if (k < 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%s%.*f %s", bytes < 0 ? "-" : "", k >= 2 && v < 10 ? 2 : 1, v, names[k]);
	return buf;
}

char *units_rate(double bytes_per_s, char *buf, size_t len)
{
	char b[32];

	snprintf(buf, len, "%s/s", units_bytes(bytes_per_s, b, sizeof(b)));
	return buf;
}
