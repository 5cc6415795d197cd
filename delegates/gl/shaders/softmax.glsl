  // softmax.glsl - SOFTMAX and LOG_SOFTMAX over the channels of pixel (x, y) of batch
  // item b, the body of main() (gl_gen_pool.c defines SM_BETA, and SM_LOG for
  // LOG_SOFTMAX): the maximum first so no exp overflows, then the sum, then the outputs;
  // lanes past I0_C take no part.
  const highp float beta = SM_BETA;
  int x = gid.x, y = gid.y, b = gid.z;
  highp float mx = -3.0e38;
  for (int s = 0; s < I0_S; s++) {
    vec4 v = vec4(I0_LD(b, y, x, s));
    for (int k = 0; k < 4; k++) if (s * 4 + k < I0_C) mx = max(mx, v[k]);
  }
  highp float sum = 0.0;
  for (int s = 0; s < I0_S; s++) {
    highp vec4 e = exp((vec4(I0_LD(b, y, x, s)) - mx) * beta);
    for (int k = 0; k < 4; k++) if (s * 4 + k < I0_C) sum += e[k];
  }
  for (int s = 0; s < I0_S; s++)
#ifdef SM_LOG
    store_out(b, y, x, s, FLT4((vec4(I0_LD(b, y, x, s)) - mx) - log(sum)));
#else
    store_out(b, y, x, s, FLT4(exp((vec4(I0_LD(b, y, x, s)) - mx) * beta) / sum));
#endif
