/* art-lab: the BoringSSL BIGNUM functions libcore's java_math_NativeBN.cpp calls, written over
   OpenSSL 3's API (Debian's libcrypto). Force-included when compiling that file. */
#ifndef ART_LAB_BORINGSSL_BN_COMPAT_H
#define ART_LAB_BORINGSSL_BN_COMPAT_H
#include <stdint.h>
#include <openssl/bn.h>
static inline int BN_set_u64(BIGNUM* bn, uint64_t value) { return BN_set_word(bn, value); }
static inline BIGNUM* BN_le2bn(const uint8_t* in, size_t len, BIGNUM* ret) {
  return BN_lebin2bn(in, (int)len, ret);
}
static inline int BN_get_u64(const BIGNUM* bn, uint64_t* out) {
  if (BN_num_bytes(bn) > 8) return 0;
  *out = BN_get_word(bn);
  return 1;
}
static inline int BN_bn2le_padded(uint8_t* out, size_t len, const BIGNUM* in) {
  return BN_bn2lebinpad(in, out, (int)len) >= 0;
}
/* r = a mod 2^e, in [0, 2^e) */
static inline int BN_nnmod_pow2(BIGNUM* r, const BIGNUM* a, size_t e) {
  if (BN_copy(r, a) == NULL) return 0;
  int neg = BN_is_negative(r);
  BN_set_negative(r, 0);
  if (BN_num_bits(r) > (int)e && !BN_mask_bits(r, (int)e)) return 0;
  if (neg && !BN_is_zero(r)) {
    BIGNUM* p = BN_new();
    int ok = p != NULL && BN_set_bit(p, (int)e) && BN_sub(r, p, r);
    BN_free(p);
    return ok;
  }
  return 1;
}
static inline int BN_primality_test(int* is_probably_prime, const BIGNUM* candidate, int checks,
                                    BN_CTX* ctx, int do_trial_division, BN_GENCB* cb) {
  (void)checks; (void)do_trial_division;
  int r = BN_check_prime(candidate, ctx, cb);
  if (r < 0) return 0;
  *is_probably_prime = r;
  return 1;
}
#endif
