/* conv_q8_stem_simd.h - conv_q8_stem.c's multiply-adds and requantization for one vector
 * width. Not a normal header: conv_q8_stem.c includes it twice, with STEM_VBITS 512 (blocks
 * of 16 output channels) and 256 (a last block of at most 8: Zen 4 runs a 512-bit
 * operation as two 256-bit halves, so 24 channels cost 16 + 8 lanes, not 32). Each width
 * defines requant_store_<STEM_VBITS> and block_<STEM_VBITS>. */

#if STEM_VBITS == 512
#define VI __m512i
#define VF __m512
#define V_(op) _mm512_##op
#define FN(name) name##_512
#define LOAD_I(p) _mm512_loadu_si512((const void *)(p))
#elif STEM_VBITS == 256
#define VI __m256i
#define VF __m256
#define V_(op) _mm256_##op
#define FN(name) name##_256
#define LOAD_I(p) _mm256_loadu_si256((const void *)(p))
#else
#error "STEM_VBITS must be 512 or 256"
#endif
#define VL (STEM_VBITS / 32) /* output channels per vector */

/* One pixel's sums of one block, requantized as requant_rows.c does (the same float steps
 * in the same order), stored under mask m. */
VNNI static inline void FN(requant_store)(const stem_state *st, VI a, VF scale, VI k, int32_t sum, __mmask16 m,
                                          uint8_t *out)
{
  const cpu_requant *rq = &geo(st)->rq;
  if (st->shifted) a = V_(add_epi32)(a, V_(mullo_epi32)(k, V_(set1_epi32)(sum)));
  VF f = V_(mul_ps)(V_(cvtepi32_ps)(a), scale);
  f = V_(min_ps)(V_(max_ps)(f, V_(set1_ps)((float)(rq->lo - rq->out_zp))), V_(set1_ps)((float)(rq->hi - rq->out_zp)));
  const VI q = V_(add_epi32)(V_(cvtps_epi32)(f), V_(set1_epi32)(rq->out_zp));
  __m128i bytes = V_(cvtepi32_epi8)(q); /* in the type's range already */
  /* kept in a register: folded into the store, vpmovdb to memory is microcoded on Zen 4
   * (it took 13% of this kernel's samples) */
  __asm__("" : "+v"(bytes));
  _mm_mask_storeu_epi8(out, m, bytes);
}

/* The block of channels from c0 (up to VL of them) for n pixels: 4 pixels per step, the
 * patch groups broadcast; requantized in registers into out (n pixels of OC bytes). */
VNNI static void FN(block)(const stem_state *st, const uint8_t *patch, const int32_t *sums, int n, uint8_t *out,
                           int c0)
{
  const int OC = geo(st)->out_c, G = st->kp / 4, KP = st->kp;
  const __mmask16 m = OC - c0 >= VL ? (__mmask16)((1u << VL) - 1) : (__mmask16)((1u << (OC - c0)) - 1);
  const VI b = LOAD_I(st->bias + c0), k = LOAD_I(st->k + c0);
  const VF scale = V_(loadu_ps)(st->scale + c0);
  const int8_t *w = st->w4 + (size_t)c0 * 4;
  uint8_t *o = out + c0;
  int p = 0;
  for (; p + 4 <= n; p += 4) {
    const uint8_t *x = patch + (size_t)p * KP;
    VI a0 = b, a1 = b, a2 = b, a3 = b;
    for (int g = 0; g < G; g++) {
      const VI wv = LOAD_I(w + (size_t)g * st->ocp * 4);
      int32_t d0, d1, d2, d3;
      memcpy(&d0, x + 4 * g, 4);
      memcpy(&d1, x + KP + 4 * g, 4);
      memcpy(&d2, x + 2 * KP + 4 * g, 4);
      memcpy(&d3, x + 3 * KP + 4 * g, 4);
      a0 = V_(dpbusd_epi32)(a0, V_(set1_epi32)(d0), wv);
      a1 = V_(dpbusd_epi32)(a1, V_(set1_epi32)(d1), wv);
      a2 = V_(dpbusd_epi32)(a2, V_(set1_epi32)(d2), wv);
      a3 = V_(dpbusd_epi32)(a3, V_(set1_epi32)(d3), wv);
    }
    FN(requant_store)(st, a0, scale, k, sums[p], m, o + (size_t)p * OC);
    FN(requant_store)(st, a1, scale, k, sums[p + 1], m, o + (size_t)(p + 1) * OC);
    FN(requant_store)(st, a2, scale, k, sums[p + 2], m, o + (size_t)(p + 2) * OC);
    FN(requant_store)(st, a3, scale, k, sums[p + 3], m, o + (size_t)(p + 3) * OC);
  }
  for (; p < n; p++) {
    const uint8_t *x = patch + (size_t)p * KP;
    VI a0 = b;
    for (int g = 0; g < G; g++) {
      int32_t d0;
      memcpy(&d0, x + 4 * g, 4);
      a0 = V_(dpbusd_epi32)(a0, V_(set1_epi32)(d0), LOAD_I(w + (size_t)g * st->ocp * 4));
    }
    FN(requant_store)(st, a0, scale, k, sums[p], m, o + (size_t)p * OC);
  }
}

#undef VI
#undef VF
#undef V_
#undef FN
#undef LOAD_I
#undef VL
