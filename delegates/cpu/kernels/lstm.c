/* being written */ typedef int placeholder_lstm_t;
