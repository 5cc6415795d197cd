/* being written */ typedef int placeholder_quantize_t;
