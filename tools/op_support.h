/* op_support.h - the operator table of tflite-inspect --ops: every TensorFlow Lite builtin
 * operator with what each delegate does with it, read from the tables the code itself uses
 * (the loader's op codes, the CPU kernels' declared types, the GL generators' table), so
 * docs/operators.md (its --markdown output, checked by a test) cannot drift. */
#ifndef TOOL_OP_SUPPORT_H
#define TOOL_OP_SUPPORT_H

#include <stdbool.h>
#include <stdio.h>

/* Prints the table: plain text, or markdown for docs/operators.md. */
void op_support_print(FILE *out, bool markdown);

#endif
