/* Class layouts for the HotSpot fork-dump, gathered through JVMTI and JNI
 * before the heap walk (while the app runs): every loaded class gets a tag
 * (its index + 1), its name, super class, loader, declared static and
 * instance fields, and the map from JVMTI field indices to where each value
 * goes in the hprof records. The child reads this while it walks. */
#ifndef OOMSCOPE_SHIM_HS_LAYOUT_H
#define OOMSCOPE_SHIM_HS_LAYOUT_H

#include <jvmti.h>
#include <stdint.h>

/* hprof basic types */
enum { HT_OBJECT = 2, HT_BOOLEAN = 4, HT_CHAR = 5, HT_FLOAT = 6, HT_DOUBLE = 7, HT_BYTE = 8, HT_SHORT = 9,
       HT_INT = 10, HT_LONG = 11 };

struct hs_field {
	uint32_t name;       /* string index */
	uint8_t type;        /* hprof basic type */
};

/* Where JVMTI field index i of a class goes. */
struct hs_slot {
	int32_t at;          /* instance field: byte offset in the instance record; static: index in statics */
	uint8_t type;
	uint8_t is_static;
	uint8_t valid;
};

struct hs_class {
	char *name;          /* "java/lang/String", "[I", "[Ljava/lang/Object;" */
	uint32_t name_str;   /* string index of the name */
	int32_t super;       /* class index, -1 for none */
	jlong loader_tag;    /* 0: the boot loader */
	uint8_t is_array, is_interface, prim_array_type; /* prim_array_type: hprof type of "[I" etc., 0 otherwise */
	uint32_t nstatic, ninst;
	struct hs_field *statics, *inst;  /* declared, in GetClassFields order */
	uint32_t inst_bytes;              /* an instance record's field bytes: this class and its supers */
	uint32_t nslots;
	struct hs_slot *slots;            /* by JVMTI field index */
};

struct hs_layout {
	uint32_t nclasses;
	struct hs_class *classes;        /* class tag t is classes[t - 1] */
	uint32_t nstrings;
	char **strings;                  /* names, string index -> text */
	jlong next_tag;                  /* first tag free for objects (loaders took some) */
	jlong class_class_tag;           /* tag of java/lang/Class */
};

/* Tags every loaded class and every class loader, and builds the layouts.
 * 0 or -1 with why filled in. */
int hs_layout_gather(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_layout *l, char *why, size_t why_len);
/* Removes the tags (parent, after the dump started) and frees everything. */
void hs_layout_release(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_layout *l);
/* The hprof size of a basic type with 8-byte ids. */
unsigned hs_type_size(uint8_t type);

#endif
