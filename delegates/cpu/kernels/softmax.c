/* being written */ typedef int placeholder_softmax_t;
