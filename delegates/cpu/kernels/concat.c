/* being written */ typedef int placeholder_concat_t;
