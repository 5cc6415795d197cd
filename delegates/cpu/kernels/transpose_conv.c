/* being written */ typedef int placeholder_transpose_conv_t;
