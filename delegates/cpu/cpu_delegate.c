/* being written */ typedef int placeholder_cpu_delegate_t;
