/* gHotSpotVMStructs read in the JVM's own memory (hs_vmstructs.h). */
#include "shim/hs_vmstructs.h"

#include <string.h>

#include "shim/elfsym.h"

static struct {
	int resolved;
	const uint8_t *table;
	long stride, type_at, field_at, static_at, offset_at;
	const uint8_t *ints;
	long int_stride, int_name_at, int_value_at;
} T;

static long value_of(struct elfsym_lib *lib, const char *name)
{
	uintptr_t a = elfsym_find(lib, name, NULL);

	return a ? *(const long *)a : -1;
}

static void resolve(void)
{
	struct elfsym_lib lib;
	uintptr_t table;

	if (T.resolved)
		return;
	T.resolved = 1;
	if (elfsym_open_loaded(&lib, "libjvm.so"))
		return;
	table = elfsym_find(&lib, "gHotSpotVMStructs", NULL);
	T.stride = value_of(&lib, "gHotSpotVMStructEntryArrayStride");
	T.type_at = value_of(&lib, "gHotSpotVMStructEntryTypeNameOffset");
	T.field_at = value_of(&lib, "gHotSpotVMStructEntryFieldNameOffset");
	T.static_at = value_of(&lib, "gHotSpotVMStructEntryIsStaticOffset");
	T.offset_at = value_of(&lib, "gHotSpotVMStructEntryOffsetOffset");
	{
		uintptr_t ints = elfsym_find(&lib, "gHotSpotVMIntConstants", NULL);

		T.int_stride = value_of(&lib, "gHotSpotVMIntConstantEntryArrayStride");
		T.int_name_at = value_of(&lib, "gHotSpotVMIntConstantEntryNameOffset");
		T.int_value_at = value_of(&lib, "gHotSpotVMIntConstantEntryValueOffset");
		if (ints && T.int_stride > 0 && T.int_name_at >= 0 && T.int_value_at >= 0)
			T.ints = *(const uint8_t *const *)ints;
	}
	elfsym_close(&lib);
	if (table && T.stride > 0 && T.type_at >= 0 && T.field_at >= 0 && T.static_at >= 0 && T.offset_at >= 0)
		T.table = *(const uint8_t *const *)table;
}

/* The entry of type::field, or NULL. The table ends with a NULL type name. */
static const uint8_t *entry(const char *type, const char *field)
{
	resolve();
	for (const uint8_t *e = T.table; e; e += T.stride) {
		const char *t = *(const char *const *)(e + T.type_at);
		const char *f = *(const char *const *)(e + T.field_at);

		if (!t)
			break;
		if (f && !strcmp(t, type) && !strcmp(f, field))
			return e;
	}
	return NULL;
}

long hs_vmstruct_offset(const char *type, const char *field)
{
	const uint8_t *e = entry(type, field);

	return e && !*(const int32_t *)(e + T.static_at) ? (long)*(const uint64_t *)(e + T.offset_at) : -1;
}

int hs_vmconstant_int(const char *name, int *value)
{
	resolve();
	for (const uint8_t *e = T.ints; e; e += T.int_stride) {
		const char *n = *(const char *const *)(e + T.int_name_at);

		if (!n)
			break;
		if (!strcmp(n, name)) {
			*value = *(const int32_t *)(e + T.int_value_at);
			return 0;
		}
	}
	return -1;
}
