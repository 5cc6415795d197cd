/* being written */ typedef int placeholder_detection_postprocess_t;
