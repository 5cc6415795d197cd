/* being written */ typedef int placeholder_fully_connected_t;
