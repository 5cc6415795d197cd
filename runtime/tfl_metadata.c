/* being written */ typedef int placeholder_tfl_metadata_t;
