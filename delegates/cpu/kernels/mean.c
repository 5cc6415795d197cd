/* being written */ typedef int placeholder_mean_t;
