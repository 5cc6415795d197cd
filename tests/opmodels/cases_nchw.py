"""cases_nchw.py - PyTorch-style models: an NCHW image input and its leading TRANSPOSE
(make_opmodels.py loads this module). tflitefilter drops that transpose
(runtime/tfl_nhwc_input.c); test_opmodels runs the file as it is, NCHW input included."""


def register(mk):
    @mk.litert_case('transpose_nchw_conv_1x1')
    def _(m):
        x = m.input([1, 3, 6, 8])
        perm = m.const([4], [0, 2, 3, 1], 'int32')
        y = m.tensor([1, 6, 8, 3])
        m.op('TRANSPOSE', [x, perm], [y], 'TransposeOptions')
        w = m.weights([4, 1, 1, 3])
        z = m.tensor([1, 6, 8, 4])
        m.op('CONV_2D', [y, w, m.weights([4])], [z], 'Conv2DOptions',
             {'padding': 'VALID', 'stride_h': 1, 'stride_w': 1, 'fused_activation_function': 'RELU'})
        m.output(z)
