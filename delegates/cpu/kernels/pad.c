/* being written */ typedef int placeholder_pad_t;
