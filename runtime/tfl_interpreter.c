/* being written */ typedef int placeholder_tfl_interpreter_t;
