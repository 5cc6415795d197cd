/* being written */ typedef int placeholder_tfl_loader_t;
