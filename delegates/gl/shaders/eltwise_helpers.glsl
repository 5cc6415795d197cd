// eltwise_helpers.glsl - the functions the element-wise expressions (gl_gen_eltwise.c)
// call, defined in every compute shader (gl_emit.c): a value used twice is computed
// once (an operand may be a whole inlined expression).
FLT4 tfl_square(FLT4 v) { return v * v; }
// erf by Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7)
FLT4 tfl_erf(FLT4 v) {
  vec4 z = abs(v), t = 1.0 / (1.0 + 0.3275911 * z);
  vec4 p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign(v) * (1.0 - p * exp(-z * z));
}
FLT4 tfl_gelu(FLT4 v) { return 0.5 * v * (1.0 + tfl_erf(v * 0.70710678118654752)); }
FLT4 tfl_gelu_tanh(FLT4 v) {
  vec4 u = 0.79788456080286536 * (v + 0.044715 * v * v * v);
  return 0.5 * v * (1.0 + tanh(clamp(u, -10.0, 10.0)));
}
FLT4 tfl_leaky(FLT4 v, float alpha) { return max(v, 0.0) + alpha * min(v, 0.0); }
FLT4 tfl_elu(FLT4 v) { return max(v, 0.0) + (exp(min(v, 0.0)) - 1.0); }
// std::pow: a negative base takes integer exponents only (odd ones keep its sign,
// others give NaN); x^0 = 1 (GLSL leaves pow(0, 0) undefined)
FLT4 tfl_pow(FLT4 a, FLT4 e) {
  vec4 r = mix(pow(abs(a), e), vec4(1.0), equal(e, vec4(0.0)));
  bvec4 neg = lessThan(a, vec4(0.0));
  r = mix(r, -r, bvec4(vec4(neg) * vec4(equal(abs(mod(e, 2.0)), vec4(1.0)))));
  return mix(r, vec4(uintBitsToFloat(0x7fc00000u)), bvec4(vec4(neg) * vec4(notEqual(e, floor(e)))));
}
// TFLite's FLOOR_MOD: the truncated remainder, moved into the divisor's sign
FLT4 tfl_floor_mod(FLT4 a, FLT4 d) {
  vec4 t = a - d * trunc(a / d);
  bvec4 fix = notEqual(lessThan(d, vec4(0.0)), lessThan(t, vec4(0.0)));
  return mix(t, t + d, bvec4(vec4(notEqual(t, vec4(0.0))) * vec4(fix)));
}
