/* being written */ typedef int placeholder_detection_nms_t;
