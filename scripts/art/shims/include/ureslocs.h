/* art-lab stand-in for ICU's internal header common/ureslocs.h (not installed by libicu-dev). */
#ifndef ART_LAB_URESLOCS_H
#define ART_LAB_URESLOCS_H
#include <unicode/utypes.h>
#include <unicode/udata.h>
#define U_ICUDATA_LANG U_ICUDATA_NAME U_TREE_SEPARATOR_STRING "lang"
#define U_ICUDATA_REGION U_ICUDATA_NAME U_TREE_SEPARATOR_STRING "region"
#define U_ICUDATA_CURR U_ICUDATA_NAME U_TREE_SEPARATOR_STRING "curr"
#define U_ICUDATA_ZONE U_ICUDATA_NAME U_TREE_SEPARATOR_STRING "zone"
#define U_ICUDATA_UNIT U_ICUDATA_NAME U_TREE_SEPARATOR_STRING "unit"
#endif
