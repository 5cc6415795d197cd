/* dwconv_q8_simd.h - dwconv_q8.c's AVX-512 body for one vector width. Not a normal header:
 * dwconv_q8.c includes it twice, with DW_VBITS 512 (blocks of 64 channels, 4 vectors of 16
 * int32 lanes) and 256 (a last block of at most 32 channels, 4 vectors of 8 lanes): Zen 4
 * runs a 512-bit operation as two 256-bit halves, so a 24-channel layer in a 64-channel
 * block paid for 64 lanes; in a 32-channel one it pays for 32. Each width defines
 * dw_sweep_<DW_VBITS>. Lane order in a block of B channels: dw_slot in dwconv_q8.c. */

#if DW_VBITS == 512
#define VI __m512i
#define VF __m512
#define VMASK __mmask64
#define V_(op) _mm512_##op
#define V_SI(op) _mm512_##op##_si512
#define FN(name) name##_512
#elif DW_VBITS == 256
#define VI __m256i
#define VF __m256
#define VMASK __mmask32
#define V_(op) _mm256_##op
#define V_SI(op) _mm256_##op##_si256
#define FN(name) name##_256
#else
#error "DW_VBITS must be 512 or 256"
#endif
#define VB (DW_VBITS / 8)  /* channels per block: one byte lane each */
#define VL (DW_VBITS / 32) /* int32 lanes per vector: a block is 4 vectors */

/* acc + per int32 lane: the 4 unsigned bytes of u times the 4 signed bytes of s. VNNI:
 * vpdpbusd, EVEX-encoded (written in assembly so this body also builds into the plain
 * AVX-512 path; {evex} so a 256-bit one never becomes the VEX AVX-VNNI form, which Zen 4
 * lacks); else the byte pairs as int16 products (at most 2 * 255 * 128: exact). */
INLINE_AVX512 VI FN(dot4)(VI acc, VI u, VI s, bool vnni)
{
  if (vnni) {
    __asm__("%{evex%} vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s));
    return acc;
  }
  const VI lo8 = V_(set1_epi16)(0x00ff);
  const VI u_even = V_SI(and)(u, lo8), u_odd = V_(srli_epi16)(u, 8);
  const VI s_even = V_(srai_epi16)(V_(slli_epi16)(s, 8), 8), s_odd = V_(srai_epi16)(s, 8);
  acc = V_(add_epi32)(acc, V_(madd_epi16)(u_even, s_even));
  return V_(add_epi32)(acc, V_(madd_epi16)(u_odd, s_odd));
}

/* The block's channels of one input pixel (nc real, the rest 0), made unsigned. */
INLINE_AVX512 VI FN(load_block)(const uint8_t *p, int nc, VI flip)
{
  const VI v = nc == VB ? V_SI(loadu)((const void *)p) : V_(maskz_loadu_epi8)(((VMASK)1 << nc) - 1, p);
  return V_SI(xor)(v, flip);
}

/* Tap row of input row iy (outside: padding) into slot: per tile column and group, the 4
 * taps' bytes of the block's channels interleaved by two rounds of byte / word unpacking,
 * in the block's lane order (dw_slot). */
INLINE_AVX512 void FN(build_row)(const dw_state *st, const uint8_t *xb, int iy, const dw_tile *t, int32_t *slot)
{
  const cpu_conv_state *gs = geo(st);
  const int C = gs->out_c, W = gs->in_w, KW = gs->k_w, nc = t->nc, sw = gs->stride_w;
  const bool row_in = iy >= 0 && iy < gs->in_h;
  const uint8_t *xr = xb + (size_t)(row_in ? iy : 0) * W * C + t->c0;
  const VI flip = V_(set1_epi8)((char)(st->zx_u ^ st->zx_stored));
  const VI pad = V_(set1_epi8)((char)st->zx_u), zero = V_SI(setzero)();
  for (int ox = t->ox0; ox < t->ox1; ox++) {
    int32_t *col = slot + (size_t)(ox - t->ox0) * t->stride;
    for (int g = 0; g < st->groups; g++) {
      const int kx0 = 4 * g, ix = ox * sw - gs->pad_w + kx0, ntap = KW - kx0 < 4 ? KW - kx0 : 4;
      VI tap[4];
      if (row_in && ix >= 0 && ix + ntap <= W) {
        const uint8_t *p = xr + (size_t)ix * C;
        tap[0] = FN(load_block)(p, nc, flip);
        tap[1] = ntap > 1 ? FN(load_block)(p + C, nc, flip) : zero;
        tap[2] = ntap > 2 ? FN(load_block)(p + 2 * (size_t)C, nc, flip) : zero;
        tap[3] = ntap > 3 ? FN(load_block)(p + 3 * (size_t)C, nc, flip) : zero;
      } else {
        for (int k = 0; k < 4; k++) {
          const int ixk = ix + k;
          tap[k] = kx0 + k >= KW ? zero
                   : row_in && ixk >= 0 && ixk < W ? FN(load_block)(xr + (size_t)ixk * C, nc, flip)
                                                  : pad;
        }
      }
      const VI ab_lo = V_(unpacklo_epi8)(tap[0], tap[1]), ab_hi = V_(unpackhi_epi8)(tap[0], tap[1]);
      const VI cd_lo = V_(unpacklo_epi8)(tap[2], tap[3]), cd_hi = V_(unpackhi_epi8)(tap[2], tap[3]);
      int32_t *o = col + (size_t)g * VB;
      V_SI(storeu)((void *)o, V_(unpacklo_epi16)(ab_lo, cd_lo));
      V_SI(storeu)((void *)(o + VL), V_(unpackhi_epi16)(ab_lo, cd_lo));
      V_SI(storeu)((void *)(o + 2 * VL), V_(unpacklo_epi16)(ab_hi, cd_hi));
      V_SI(storeu)((void *)(o + 3 * VL), V_(unpackhi_epi16)(ab_hi, cd_hi));
    }
  }
}

/* Output row of the tile from the KH tap rows in slots[]: 4 accumulators (the block's
 * channels in lane order). KH3: a 3x3 filter (KH = 3, G = 1), its weights held in
 * registers over the row. Packing the 4 vectors to bytes undoes the lane order. */
INLINE_AVX512 void FN(output_row_n)(const dw_state *st, int32_t *const *slots, const dw_tile *t, uint8_t *yrow,
                                    const bool vnni, const bool shifted, const bool KH3)
{
  const cpu_conv_state *gs = geo(st);
  const cpu_requant *rq = &gs->rq;
  const int C = gs->out_c, G = KH3 ? 1 : st->groups, KH = KH3 ? 3 : gs->k_h;
  const size_t cpad4 = (size_t)st->cpad * 4;
  const int c0 = t->c0, nc = t->nc;
  const VMASK m = nc == VB ? (VMASK)~(VMASK)0 : ((VMASK)1 << nc) - 1;
  const bool u8 = rq->is_u8;
  const VF flo = V_(set1_ps)((float)(rq->lo - rq->out_zp));
  const VF fhi = V_(set1_ps)((float)(rq->hi - rq->out_zp));
  const VI zp = V_(set1_epi32)(rq->out_zp);
  const int8_t *w4 = st->w4 + (size_t)c0 * 4;
  const int32_t *bias = st->bias + c0, *kk = st->k + c0;
  const float *scale = st->scale + c0;
  VI w3[3][4], b4[4]; /* KH3: the 3 rows' weights, and the bias and scale, in registers */
  VF s4[4];
  if (KH3)
    for (int v = 0; v < 4; v++) {
      for (int ky = 0; ky < 3; ky++) w3[ky][v] = V_SI(loadu)((const void *)(w4 + ky * cpad4 + VB * v));
      b4[v] = V_SI(loadu)((const void *)(bias + VL * v)), s4[v] = V_(loadu_ps)(scale + VL * v);
    }
  const int ncols = t->ox1 - t->ox0;
  uint8_t *out = yrow + (size_t)t->ox0 * C + c0;
  for (int i = 0; i < ncols; i++, out += C) {
    VI acc[4], sx[4], q[4];
    for (int v = 0; v < 4; v++)
      acc[v] = KH3 ? b4[v] : V_SI(loadu)((const void *)(bias + VL * v)), sx[v] = V_SI(setzero)();
    for (int ky = 0; ky < KH; ky++)
      for (int g = 0; g < G; g++) {
        const int32_t *u = slots[ky] + (size_t)i * t->stride + (size_t)g * VB;
        const VI ones = V_(set1_epi32)((int)st->ones[g]);
        for (int v = 0; v < 4; v++) {
          const VI xu = V_SI(loadu)((const void *)(u + VL * v));
          const VI w = KH3 ? w3[ky][v] : V_SI(loadu)((const void *)(w4 + (ky * G + g) * cpad4 + VB * v));
          acc[v] = FN(dot4)(acc[v], xu, w, vnni);
          if (shifted) sx[v] = FN(dot4)(sx[v], xu, ones, vnni);
        }
      }
    for (int v = 0; v < 4; v++) {
      if (shifted)
        acc[v] = V_(add_epi32)(acc[v], V_(mullo_epi32)(sx[v], V_SI(loadu)((const void *)(kk + VL * v))));
      VF f = V_(mul_ps)(V_(cvtepi32_ps)(acc[v]), KH3 ? s4[v] : V_(loadu_ps)(scale + VL * v));
      f = V_(min_ps)(V_(max_ps)(f, flo), fhi);
      q[v] = V_(add_epi32)(V_(cvtps_epi32)(f), zp); /* in the type's range: packs do not saturate */
    }
    const VI lo = V_(packs_epi32)(q[0], q[1]), hi = V_(packs_epi32)(q[2], q[3]);
    const VI bytes = u8 ? V_(packus_epi16)(lo, hi) : V_(packs_epi16)(lo, hi);
    if (nc == VB)
      V_SI(storeu)((void *)out, bytes);
    else
      V_(mask_storeu_epi8)(out, m, bytes);
  }
}

INLINE_AVX512 void FN(output_row)(const dw_state *st, int32_t *const *slots, const dw_tile *t, uint8_t *yrow,
                                  bool vnni)
{
  const bool kh3 = geo(st)->k_h == 3 && st->groups == 1;
  if (st->shifted) {
    if (kh3)
      FN(output_row_n)(st, slots, t, yrow, vnni, true, true);
    else
      FN(output_row_n)(st, slots, t, yrow, vnni, true, false);
  } else {
    if (kh3)
      FN(output_row_n)(st, slots, t, yrow, vnni, false, true);
    else
      FN(output_row_n)(st, slots, t, yrow, vnni, false, false);
  }
}

/* Output rows [oy0, oy1) of one image (input xb, output yb) for the block at channel c0:
 * per tile of columns, a sweep down the rows that builds each tap row once into the ring. */
INLINE_AVX512 void FN(dw_sweep)(const dw_state *st, const uint8_t *xb, uint8_t *yb, int oy0, int oy1, int c0,
                                int32_t *ring, bool vnni)
{
  const cpu_conv_state *gs = geo(st);
  const int C = gs->out_c, KH = gs->k_h, OW = gs->out_w, stride = st->groups * VB;
  const int tile_w = DW_RING_WORDS / (KH * stride) < OW ? DW_RING_WORDS / (KH * stride) : OW;
  const size_t slot_words = (size_t)tile_w * stride;
  int32_t *slots[DW_MAX_ROW_GROUPS];
  for (int ox0 = 0; ox0 < OW; ox0 += tile_w) {
    const dw_tile t = {c0, C - c0 < VB ? C - c0 : VB, ox0, ox0 + tile_w < OW ? ox0 + tile_w : OW, stride};
    int built = -(1 << 30); /* highest input row in the ring */
    for (int oy = oy0; oy < oy1; oy++) {
      const int iy0 = oy * gs->stride_h - gs->pad_h;
      for (int iy = built >= iy0 ? built + 1 : iy0; iy < iy0 + KH; iy++)
        FN(build_row)(st, xb, iy, &t, ring + (size_t)((iy + gs->pad_h) % KH) * slot_words);
      built = iy0 + KH - 1;
      for (int ky = 0; ky < KH; ky++) slots[ky] = ring + (size_t)((iy0 + ky + gs->pad_h) % KH) * slot_words;
      FN(output_row)(st, slots, &t, yb + (size_t)oy * OW * C, vnni);
    }
  }
}

#undef VI
#undef VF
#undef VMASK
#undef V_
#undef V_SI
#undef FN
#undef VB
#undef VL
