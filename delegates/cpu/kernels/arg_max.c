/* being written */ typedef int placeholder_arg_max_t;
