/* being written */ typedef int placeholder_posenet_decode_t;
