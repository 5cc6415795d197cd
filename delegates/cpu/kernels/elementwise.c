/* being written */ typedef int placeholder_elementwise_t;
