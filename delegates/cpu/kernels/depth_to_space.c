/* being written */ typedef int placeholder_depth_to_space_t;
