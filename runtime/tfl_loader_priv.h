/* tfl_loader_priv.h - internals shared by tfl_graph.c and the loader's files
 * (tfl_loader.c, tfl_loader_ops.c, tfl_metadata.c). Not for other layers. */
#ifndef TFL_LOADER_PRIV_H
#define TFL_LOADER_PRIV_H

#include "flatbuf.h"
#include "tfl_graph.h"

/* Backing storage of the model bytes (one of map / copy), recorded in g->priv. */
/* False on OOM (the caller still owns the bytes then). */
bool tfl_graph_set_backing_mmap(tfl_graph *g, void *map, size_t size);
bool tfl_graph_set_backing_copy(tfl_graph *g, void *copy);
/* A graph-owned NUL-terminated copy of s[0..len); NULL on OOM. */
char *tfl_graph_strndup(tfl_graph *g, const char *s, size_t len);

/* tfl_loader_ops.c: the op-code tables (tfl_builtin_code_name and friends: tfl_loader.h). */
/* Our op for a custom op name; false when unknown. */
bool tfl_op_from_custom(const char *name, tfl_op *op);
/* Fills n->p from the Operator table `op_t` (builtin_options or custom_options).
 * `file`/`file_size` are the whole model bytes (large custom options live there). */
tfl_status tfl_parse_op_options(fb_reader *r, const fb_table *op_t, tfl_node *n, int node_index,
                                const uint8_t *file, size_t file_size, tfl_diag *diag);

/* tfl_metadata.c: reads "TFLITE_METADATA" into g->meta. Failures are logged as
 * warnings and leave the metadata empty: a model runs without it. */
void tfl_read_metadata(tfl_graph *g, fb_reader *r, const fb_table *model, tfl_diag *diag);
/* tfl_ultralytics.c: Ultralytics' metadata.json (a zip entry after the flatbuffer) into
 * g->meta.ultralytics, its class names into g->meta.labels when it has none. Absent:
 * nothing changes (end2end -1); malformed: a warning, what was read is kept. */
void tfl_read_ultralytics(tfl_graph *g, tfl_diag *diag);
/* Returns the bytes of buffer `index` of the model (data vector or offset/size),
 * checked against the file; *data NULL with size 0 for an empty buffer. */
tfl_status tfl_buffer_bytes(fb_reader *r, const fb_table *model, const tfl_graph *g,
                            uint32_t index, const uint8_t **data, size_t *size, tfl_diag *diag);

#endif
