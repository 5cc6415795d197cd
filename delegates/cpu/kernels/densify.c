/* being written */ typedef int placeholder_densify_t;
