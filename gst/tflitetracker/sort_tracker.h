/* sort_tracker.h - multi-object tracking by box overlap and motion (SORT-style), plain C.
 *
 *   sort_tracker *t = sort_tracker_new(&opts);
 *   per frame:  sort_tracker_step(t, dets, n, fresh, out_assign);   // ids for dets
 *               walk sort_tracker_track(t, i) for predictions and events
 *   sort_tracker_free(t);
 *
 * Each track holds a box (centre, size) and its velocity per frame: every step first
 * predicts (constant velocity); on a frame whose detections are fresh, detections are
 * assigned to the predicted boxes greedily by overlap (IoU, best pairs first, same class
 * only), matched tracks move towards their detection (alpha) and learn its motion (beta),
 * unmatched detections start tentative tracks, unmatched tracks count a miss. A track is
 * confirmed after min_hits matches (then it "enters") and dropped after more than max_age
 * misses in a row (then a confirmed one "leaves"). On frames without fresh detections
 * (the detector did not run) tracks are only predicted: no miss is counted.
 *
 * No global state; one tracker per stream, used by one thread at a time.
 */
#ifndef SORT_TRACKER_H
#define SORT_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  float iou_threshold;   /* least overlap of a detection with a predicted box to match (0.3) */
  int min_hits;          /* matches before a track is confirmed (3) */
  int max_age;           /* misses in a row before a track is dropped (30) */
  float alpha, beta;     /* position and velocity gains towards a detection (0.7, 0.3) */
} sort_options;

sort_options sort_defaults(void);

typedef struct {
  float x, y, w, h;      /* frame pixels, top-left and size */
  int class_id;          /* -1: any */
} sort_box;

typedef enum { SORT_NONE, SORT_ENTERED, SORT_LEFT } sort_event;

typedef struct {
  uint64_t id;           /* > 0, unique in the tracker, never reused */
  sort_box box;          /* the predicted (or just corrected) box */
  float vx, vy, vw, vh;  /* per frame */
  int class_id;
  int hits, misses;      /* matches so far; misses in a row */
  bool confirmed;
  bool matched;          /* matched a detection this step */
  sort_event event;      /* what happened to it this step */
} sort_track;

typedef struct sort_tracker sort_tracker;

sort_tracker *sort_tracker_new(const sort_options *o);
void sort_tracker_free(sort_tracker *t);

/* One frame. `fresh`: the detections were computed on this frame (else they repeat an
 * older frame's and only prediction happens; assign[] gets the track their box overlaps
 * most, for their id). assign[i] gets the index of detection i's track (-1: none, e.g.
 * fresh detections of a tentative track still get theirs). Returns 0, or -1 on OOM. */
int sort_tracker_step(sort_tracker *t, const sort_box *dets, int n, bool fresh, int *assign);

/* The tracks after the last step, including those that left in it (event SORT_LEFT,
 * gone at the next step). */
int sort_tracker_count(const sort_tracker *t);
const sort_track *sort_tracker_track(const sort_tracker *t, int i);
/* Tracks confirmed so far (entries counted once). */
uint64_t sort_tracker_entered(const sort_tracker *t);

float sort_iou(const sort_box *a, const sort_box *b);

#endif
