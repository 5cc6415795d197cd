/* being written */ typedef int placeholder_conv_t;
