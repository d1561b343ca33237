/* art-lab stand-in for AOSP external/fdlibm (no Debian package ships fdlibm): StrictMath's
   ieee_* functions map to glibc's libm. Results can differ from fdlibm in the last bit. */
#ifndef ART_LAB_FDLIBM_H
#define ART_LAB_FDLIBM_H
#include <math.h>
#define ieee_cos cos
#define ieee_sin sin
#define ieee_tan tan
#define ieee_asin asin
#define ieee_acos acos
#define ieee_atan atan
#define ieee_exp exp
#define ieee_log log
#define ieee_log10 log10
#define ieee_sqrt sqrt
#define ieee_cbrt cbrt
#define ieee_atan2 atan2
#define ieee_pow pow
#define ieee_remainder remainder
#define ieee_cosh cosh
#define ieee_sinh sinh
#define ieee_tanh tanh
#define ieee_hypot hypot
#define ieee_log1p log1p
#define ieee_expm1 expm1
#define ieee_floor floor
#define ieee_ceil ceil
#define ieee_rint rint
#endif
