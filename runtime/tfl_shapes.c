/* being written */ typedef int placeholder_tfl_shapes_t;
