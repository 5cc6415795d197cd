  // irb_setup.glsl, irb_chunk.glsl, irb_store.glsl - an inverted residual block in one
  // dispatch (gl_gen_irb.c has the scheme): setup, then irb_chunk.glsl once per chunk of
  // IR_CS expanded slices (GLSL ES 3.1 allows no barrier() inside loops, so the C side
  // writes the chunks out, each after defining its first slice IR_C0 and its slices IR_N),
  // then the stores. The C side defines the tile (IR_TH x IR_TW output pixels, IR_TX tiles
  // along x), the input window (IR_WW wide, IR_WIN pixels, IR_WBL blocks of IR_WB), the
  // projection's blocks (IR_NPB of IR_PXB pixels, IR_ROWS rows), the shared rows (IR_CSP),
  // the expanded slices IR_ES, the workgroup IR_WG, the depthwise's window (IR_KH, IR_KW),
  // strides (IR_SH, IR_SW), top and left padding (IR_PT, IR_PL) and dilations (IR_DH,
  // IR_DW), the activations IR_EACT(v), IR_DACT(v), IR_ACT(v) (expansion, depthwise,
  // projection), and the unrolled lists IR_EACH_ITEM(M) (the lane's IR_ITEMS projection
  // items), IR_EACH_WIN(M) (a block's window pixels), IR_EACH_PX(M, k) (a projection
  // block's pixels, of item k).
#define IR_A(j, k) a[(k) * IR_PXB + (j)]
#define IR_ZERO(j, k) IR_A(j, k) = vec4(0.0);
#define IR_ITEM(k) pb[k] = (lane + k * WG) % NPB; os[k] = min((lane + k * WG) / NPB, O_S - 1); wb[k] = os[k] * ES * 4; pj[k] = lane + k * WG < NPB * O_S; IR_EACH_PX(IR_ZERO, k)
#define IR_WPIX(k) wy[k] = iy0 + (q0 + k) / WW; wx[k] = ix0 + (q0 + k) % WW; win[k] = q0 + k < WIN && wy[k] >= 0 && wy[k] < I0_H && wx[k] >= 0 && wx[k] < I0_W; wy[k] = clamp(wy[k], 0, I0_H - 1); wx[k] = clamp(wx[k], 0, I0_W - 1); e[k] = vec4(0.0);
#define IR_EMAC(k) { FLT4 v = I0_LD(b, wy[k], wx[k], i); e[k] += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; }
#define IR_ESTORE(k) e[k] = e[k] * EW_SC(s) + EB_LD(s); IR_EACT(e[k]) if (q0 + k < WIN) ESH[(q0 + k) * CS + j] = win[k] && IR_C0 + j < ES ? e[k] : vec4(0.0);
#define IR_PMAC(j, k) { vec4 v = DSH[r + j * CSP]; IR_A(j, k) += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; }
#define IR_PROJ(k) if (pj[k]) { for (int i = 0; i < IR_N + z; i++) { int wi = wb[k] + (IR_C0 + i) * 4, r = pb[k] * IR_PXB * CSP + i; FLT4 w0 = W_LD(wi), w1 = W_LD(wi + 1), w2 = W_LD(wi + 2), w3 = W_LD(wi + 3); IR_EACH_PX(IR_PMAC, k) } }
#define IR_OUT(j, k) if (pj[k] && pb[k] * IR_PXB + j < TP) { int q = pb[k] * IR_PXB + j, y = oy0 + q / TW, x = ox0 + q % TW; if (y < O_H && x < O_W) { ACC4 acc = IR_A(j, k) * W_SC(os[k]) + BIAS_LD(os[k]); IR_ACT(acc) store_out(b, y, x, os[k], acc); } }
#define IR_OUT_ITEM(k) IR_EACH_PX(IR_OUT, k)
  const int WBL = IR_WBL;
  const int TH = IR_TH, TW = IR_TW, WW = IR_WW, WIN = IR_WIN, TP = IR_TP, ROWS = IR_ROWS, CS = IR_CS, CSP = IR_CSP, ES = IR_ES, NPB = IR_NPB, WG = IR_WG;
  int lane = gid.x % WG, tile = gid.x / WG, b = gid.z;
  int oy0 = (tile / IR_TX) * TH, ox0 = (tile % IR_TX) * TW;
  int iy0 = oy0 * IR_SH - IR_PT, ix0 = ox0 * IR_SW - IR_PL;
  // z is 0, unknown to the compiler: the loops inside a chunk stay loops
  int z = min(gid.y, 0), nis = I0_S + z, nkh = IR_KH + z, nkw = IR_KW + z;
  // projection item k of this lane: block pb[k], output slice os[k] (clamped for lanes
  // without one, which compute and store nothing)
  int pb[IR_ITEMS], os[IR_ITEMS], wb[IR_ITEMS];
  bool pj[IR_ITEMS];
  ACC4 a[IR_ITEMS * IR_PXB];
  IR_EACH_ITEM(IR_ITEM)
