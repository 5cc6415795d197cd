#!/usr/bin/env python3
"""cut_last_op.py IN.tflite OUT.tflite - copy of a model without its last operator.

The copy's outputs become the last operator's inputs (constant inputs too, which is harmless).
Used to benchmark and compare models that end in a custom op the reference runtime lacks
(PosenetDecoderOp) or cannot bench (TFLite_Detection_PostProcess): both runtimes then run the
same graph up to that op. Done in place on the flatbuffer: the operators vector's length is
shortened by one and the subgraph's outputs vector is overwritten, so it must have room for the
new outputs (it does for both models: 3 or 4 old outputs, 3 new ones).
"""
import struct
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[0])
    buf = bytearray(open(sys.argv[1], 'rb').read())

    def u32(o):
        return struct.unpack_from('<I', buf, o)[0]

    def table_field(table, index):
        """Absolute offset of field `index` of the table at `table`, or None when absent."""
        vtable = table - struct.unpack_from('<i', buf, table)[0]
        vt_len = struct.unpack_from('<H', buf, vtable)[0]
        if 4 + 2 * index >= vt_len:
            return None
        rel = struct.unpack_from('<H', buf, vtable + 4 + 2 * index)[0]
        return table + rel if rel else None

    def ref(o):  # follow a uoffset
        return o + u32(o)

    # Model.subgraphs is field 2; SubGraph.inputs 1, outputs 2, operators 3; Operator.inputs 1.
    subgraph = ref(ref(table_field(ref(0), 2)) + 4)
    outputs = ref(table_field(subgraph, 2))
    operators = ref(table_field(subgraph, 3))
    n_ops = u32(operators)
    last = ref(operators + 4 * n_ops)
    last_inputs = ref(table_field(last, 1))
    feed = [struct.unpack_from('<i', buf, last_inputs + 4 + 4 * k)[0] for k in range(u32(last_inputs))]
    feed = [t for t in feed if t >= 0]  # -1 marks an optional input that is absent
    if len(feed) > u32(outputs):
        sys.exit(f'cut_last_op: last op has {len(feed)} inputs, outputs vector holds only {u32(outputs)}')
    struct.pack_into('<I', buf, operators, n_ops - 1)
    struct.pack_into('<I', buf, outputs, len(feed))
    for k, t in enumerate(feed):
        struct.pack_into('<i', buf, outputs + 4 + 4 * k, t)
    open(sys.argv[2], 'wb').write(buf)


if __name__ == '__main__':
    main()
