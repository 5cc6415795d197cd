/* being written */ typedef int placeholder_activations_t;
