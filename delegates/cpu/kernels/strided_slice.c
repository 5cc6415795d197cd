/* being written */ typedef int placeholder_strided_slice_t;
