/* being written */ typedef int placeholder_reshape_t;
