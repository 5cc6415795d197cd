/* being written */ typedef int placeholder_posenet_decoder_t;
