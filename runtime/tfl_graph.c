/* being written */ typedef int placeholder_tfl_graph_t;
