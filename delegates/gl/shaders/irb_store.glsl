  // irb_store.glsl - an inverted residual block's projection sums through store_out
  // (irb_setup.glsl has the parameters and the macros)
  IR_EACH_ITEM(IR_OUT_ITEM)
