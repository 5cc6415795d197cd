/* being written */ typedef int placeholder_tfl_loader_ops_t;
