/* being written */ typedef int placeholder_tfl_fold_t;
