/* HotSpot's own description of its structures (gHotSpotVMStructs, the
 * table the Serviceability Agent reads; exported by every libjvm.so, its
 * entry layout given by the gHotSpotVMStructEntry*Offset variables): a
 * field's offset by type and field name; an integer constant by name. */
#ifndef OOMSCOPE_SHIM_HS_VMSTRUCTS_H
#define OOMSCOPE_SHIM_HS_VMSTRUCTS_H

#include <stdint.h>

/* The offset of type::field, or -1 when the table lacks it. */
long hs_vmstruct_offset(const char *type, const char *field);
/* The value of an integer constant (gHotSpotVMIntConstants: "HeapRegionType::SurvTag"):
 * 0, or -1 when the table lacks it. */
int hs_vmconstant_int(const char *name, int *value);

#endif
