"""cases_index.py - single-op models of the index ops (make_opmodels.py loads this module).

register(mk) adds cases through mk.litert_case (golden from the native TensorFlow Lite,
every tensor type fed and read directly) or mk.case (the wasm oracle).
"""


def register(mk):
    pass
