/* What a native frame says about ART's Java code, from its module and
 * symbol alone (no runtime asked): compiled Java in an oat file (dex2oat's
 * output, its methods named in its MiniDebugInfo), or ART's interpreter
 * running a method. */
#ifndef OOMSCOPE_SYM_ART_FRAMES_H
#define OOMSCOPE_SYM_ART_FRAMES_H

enum ooms_art_frame {
	OOMS_ART_NONE,        /* neither */
	OOMS_ART_COMPILED,    /* a frame of an .oat or .odex file: its symbol is the method */
	OOMS_ART_INTERPRETER, /* libart.so's interpreters (nterp, mterp, switch) and the bridges into them */
};

/* base: the module's file name (no directory); sym: the frame's symbol
 * (mangled as in the file), or NULL. */
enum ooms_art_frame ooms_art_frame_kind(const char *base, const char *sym);

#endif
