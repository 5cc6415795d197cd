  // se.glsl - a squeeze-and-excite vector in one workgroup of SE_WG lanes per batch item
  // (gl_gen_se.c has the scheme): the mean of each of I0's SE_XS slices over its SE_NP
  // pixels (SE_XW a row) into MID, then (with SE_TWO) a first pointwise layer into HID and
  // the last one through store_out. Layer L (1: the first of two, 2: the last) has SE_ISL
  // input and SE_OSL output slices, each output's dot product split over SE_KL lanes. The
  // C side defines those, SE_POOL_LOOP (more slices than lanes: a lane per slice) or
  // SE_C (lanes per slice), the trees SE_TREE0 (pool), SE_TREE1, SE_TREE2 (steps down to
  // two entries a segment, each between barriers: GLSL ES allows barrier() only at the top
  // level of main), SE_VEC (the last layer's input, MID or HID), the activations
  // SE_ACT1(v), SE_ACT2(v), and statements SE_POOL_Q (mid_ onto the pooled tensor's
  // integer grid, if quantized) and SE_HID (acc through the ops between the layers).
// a0..a3 = sums of slice s over pixels q0, q0 + C, q0 + 2C, ...: four loads in flight,
// the tail into a0; the caller adds ((a0 + a1) + (a2 + a3))
#define SE_SUMS(q0, C) ACC4 a0 = vec4(0.0), a1 = vec4(0.0), a2 = vec4(0.0), a3 = vec4(0.0); int q = q0; for (; q + 3 * (C) < SE_NP; q += 4 * (C)) { a0 += I0_LD(b, q / SE_XW, q % SE_XW, s); a1 += I0_LD(b, (q + (C)) / SE_XW, (q + (C)) % SE_XW, s); a2 += I0_LD(b, (q + 2 * (C)) / SE_XW, (q + 2 * (C)) % SE_XW, s); a3 += I0_LD(b, (q + 3 * (C)) / SE_XW, (q + 3 * (C)) % SE_XW, s); } for (; q < SE_NP; q += (C)) a0 += I0_LD(b, q / SE_XW, q % SE_XW, s);
// acc += VEC[i] . the weights (loads WLD) of output slice j, input slices i = FIRST, FIRST + STEP, ...
#define SE_DOT(VEC, WLD, IS, FIRST, STEP) for (int i = FIRST; i < IS; i += STEP) { vec4 v = VEC[i]; int wi = j * (IS * 4) + i * 4; acc += v.x * WLD(wi) + v.y * WLD(wi + 1) + v.z * WLD(wi + 2) + v.w * WLD(wi + 3); }
  int t = gid.x, b = gid.z;
#ifdef SE_POOL_LOOP
  for (int s = t; s < SE_XS; s += SE_WG) {
    SE_SUMS(0, 1)
    vec4 mid_ = ((a0 + a1) + (a2 + a3)) * (1.0 / float(SE_NP));
    SE_POOL_Q
    MID[s] = mid_;
  }
#else
#if SE_XS * SE_C < SE_WG
  if (t < SE_XS * SE_C)
#endif
  {
    int s = t / SE_C;
    SE_SUMS(t % SE_C, SE_C)
    RED[t] = (a0 + a1) + (a2 + a3);
  }
  memoryBarrierShared();
  barrier();
  SE_TREE0
  if (t < SE_XS) {
#if SE_C >= 2
    vec4 mid_ = (RED[t * SE_C] + RED[t * SE_C + 1]) * (1.0 / float(SE_NP));
#else
    vec4 mid_ = (RED[t]) * (1.0 / float(SE_NP));
#endif
    SE_POOL_Q
    MID[t] = mid_;
  }
#endif
  memoryBarrierShared();
  barrier();
#ifdef SE_TWO
#if SE_K1 == 1
  for (int j = t; j < SE_OS1; j += SE_WG) {
    ACC4 acc = vec4(0.0);
    SE_DOT(MID, W1_LD, SE_IS1, 0, 1)
#else
#if SE_OS1 * SE_K1 < SE_WG
  if (t < SE_OS1 * SE_K1)
#endif
  {
    int j = t / SE_K1;
    ACC4 acc = vec4(0.0);
    SE_DOT(MID, W1_LD, SE_IS1, t % SE_K1, SE_K1)
    RED[t] = acc;
  }
  memoryBarrierShared();
  barrier();
  SE_TREE1
  if (t < SE_OS1) {
    int j = t;
    ACC4 acc = RED[j * SE_K1] + RED[j * SE_K1 + 1];
#endif
    acc = acc * W1_SC(j) + B1_LD(j);
    SE_ACT1(acc)
    SE_HID
    HID[j] = acc;
  }
  memoryBarrierShared();
  barrier();
#endif
#if SE_K2 == 1
  for (int j = t; j < SE_OS2; j += SE_WG) {
    ACC4 acc = vec4(0.0);
    SE_DOT(SE_VEC, W_LD, SE_IS2, 0, 1)
#else
#if SE_OS2 * SE_K2 < SE_WG
  if (t < SE_OS2 * SE_K2)
#endif
  {
    int j = t / SE_K2;
    ACC4 acc = vec4(0.0);
    SE_DOT(SE_VEC, W_LD, SE_IS2, t % SE_K2, SE_K2)
    RED[t] = acc;
  }
  memoryBarrierShared();
  barrier();
  SE_TREE2
  if (t < SE_OS2) {
    int j = t;
    ACC4 acc = RED[j * SE_K2] + RED[j * SE_K2 + 1];
#endif
    acc = acc * W_SC(j) + BIAS_LD(j);
    SE_ACT2(acc)
    store_out(b, 0, 0, j, acc);
  }
