/* being written */ typedef int placeholder_depthwise_conv_t;
