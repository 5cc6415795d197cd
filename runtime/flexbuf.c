/* being written */ typedef int placeholder_flexbuf_t;
