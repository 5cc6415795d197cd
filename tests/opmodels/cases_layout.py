"""cases_layout.py - single-op models of the layout ops (make_opmodels.py loads this module).

register(mk) adds cases through mk.litert_case (golden from the native TensorFlow Lite,
every tensor type fed and read directly) or mk.case (the wasm oracle).
"""


def register(mk):
    @mk.litert_case('transpose_nchw_to_nhwc')
    def _(m):
        x = m.input([1, 3, 4, 5])
        perm = m.const([4], [0, 2, 3, 1], 'int32')
        y = m.tensor([1, 4, 5, 3])
        m.op('TRANSPOSE', [x, perm], [y], 'TransposeOptions')
        m.output(y)
