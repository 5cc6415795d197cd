/* being written */ typedef int placeholder_flatbuf_t;
