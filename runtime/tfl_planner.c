/* being written */ typedef int placeholder_tfl_planner_t;
