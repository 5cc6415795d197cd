/* being written */ typedef int placeholder_pooling_t;
