/* being written */ typedef int placeholder_resize_t;
