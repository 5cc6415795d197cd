/* being written */ typedef int placeholder_xnn_partition_t;
