/* test_sort_tracker.c - the tracker core (gst/tflitetracker/sort_tracker.c) on synthetic
 * tracks whose truth is known: two objects crossing keep their ids, an occluded object
 * keeps its id through max_age frames and loses it after, objects enter after min_hits
 * and leave once, a detector that runs every third frame gives predicted boxes close to
 * the truth in between.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "gst/tflitetracker/sort_tracker.h"

/* Object `i` at frame f: a 40x40 box moving at (vx, vy) from (x0, y0). */
typedef struct {
  float x0, y0, vx, vy;
} walker;

static sort_box at(const walker *w, int f)
{
  return (sort_box){ w->x0 + w->vx * f, w->y0 + w->vy * f, 40, 40, 0 };
}

static uint64_t id_of(const sort_tracker *t, int track)
{
  const sort_track *k = sort_tracker_track(t, track);
  return k && k->confirmed ? k->id : 0;
}

/* Two boxes crossing: 6 px/frame towards each other, overlapping for a few frames. */
static void test_crossing(void)
{
  sort_tracker *t = sort_tracker_new(NULL);
  walker w[2] = { { 0, 100, 6, 0 }, { 300, 110, -6, 0 } };
  uint64_t first[2] = { 0, 0 };
  int swaps = 0;
  for (int f = 0; f < 60; f++) {
    sort_box d[2] = { at(&w[0], f), at(&w[1], f) };
    int a[2];
    CHECK(sort_tracker_step(t, d, 2, true, a) == 0, "step");
    for (int i = 0; i < 2; i++) {
      uint64_t id = id_of(t, a[i]);
      if (!first[i]) first[i] = id;
      else if (id != first[i]) swaps++;
    }
  }
  CHECK(first[0] && first[1] && first[0] != first[1] && swaps == 0,
        "crossing: ids %llu, %llu, %d frame(s) with a swapped or lost id", (unsigned long long)first[0],
        (unsigned long long)first[1], swaps);
  CHECK(sort_tracker_entered(t) == 2, "crossing: %llu entered", (unsigned long long)sort_tracker_entered(t));
  printf("ok   crossing: ids %llu and %llu kept through the crossing\n", (unsigned long long)first[0],
         (unsigned long long)first[1]);
  sort_tracker_free(t);
}

/* Occluded for `gap` frames (no detection), then seen again where it walked to. */
static void occlusion(int gap, int max_age, bool want_same)
{
  sort_options o = sort_defaults();
  o.max_age = max_age;
  sort_tracker *t = sort_tracker_new(&o);
  walker w = { 10, 50, 3, 1 };
  uint64_t before = 0, after = 0;
  int left = 0;
  for (int f = 0; f < 30 + gap + 5; f++) {
    bool seen = f < 30 || f >= 30 + gap;
    sort_box d = at(&w, f);
    int a = -1;
    sort_tracker_step(t, &d, seen ? 1 : 0, true, &a);
    for (int i = 0; i < sort_tracker_count(t); i++)
      left += sort_tracker_track(t, i)->event == SORT_LEFT && sort_tracker_track(t, i)->confirmed;
    if (f == 29) before = id_of(t, a);
    if (f == 30 + gap + 4) after = id_of(t, a);
    if (!seen && f == 30 + gap - 1 && gap <= max_age) {
      /* still predicted where it walks */
      const sort_track *k = sort_tracker_track(t, 0);
      CHECK(k && fabsf(k->box.x - d.x) < 4 && fabsf(k->box.y - d.y) < 4,
            "occluded %d frames: prediction (%.1f, %.1f), truth (%.1f, %.1f)", gap, k ? k->box.x : -1,
            k ? k->box.y : -1, d.x, d.y);
    }
  }
  CHECK(before && after && (before == after) == want_same && left == (want_same ? 0 : 1),
        "occluded %d frames, max_age %d: id %llu before, %llu after, %d leave(s)", gap, max_age,
        (unsigned long long)before, (unsigned long long)after, left);
  printf("ok   occluded %2d frames with max_age %2d: id %llu -> %llu, %d leave\n", gap, max_age,
         (unsigned long long)before, (unsigned long long)after, left);
  sort_tracker_free(t);
}

/* Enters after min_hits detections, leaves once after max_age misses; a one-frame false
 * detection never enters. */
static void test_enter_leave(void)
{
  sort_options o = sort_defaults();
  o.min_hits = 3;
  o.max_age = 5;
  sort_tracker *t = sort_tracker_new(&o);
  walker w = { 100, 100, 2, 0 };
  int enter_at = -1, leaves = 0, enters = 0;
  for (int f = 0; f < 30; f++) {
    sort_box d[2] = { at(&w, f), { 400, 400, 30, 30, 0 } };
    int n = f < 10 ? 1 : 0;
    if (f == 4) n = 2; /* a false detection, one frame */
    int a[2];
    sort_tracker_step(t, d, n, true, a);
    for (int i = 0; i < sort_tracker_count(t); i++) {
      const sort_track *k = sort_tracker_track(t, i);
      if (k->event == SORT_ENTERED) enters++, enter_at = enter_at < 0 ? f : enter_at;
      if (k->event == SORT_LEFT && k->confirmed) leaves++;
    }
  }
  CHECK(enters == 1 && enter_at == 2 && leaves == 1 && sort_tracker_count(t) == 0,
        "enter/leave: %d enter(s) (first at frame %d), %d leave(s), %d track(s) left", enters, enter_at, leaves,
        sort_tracker_count(t));
  printf("ok   enters at its 3rd detection, leaves once after 5 misses, the one-frame false box never enters\n");
  sort_tracker_free(t);
}

/* A detector every third frame; the frames between repeat its boxes (not fresh): the
 * predicted box stays near the truth and the id stays. */
static void test_skipped_frames(void)
{
  sort_tracker *t = sort_tracker_new(NULL);
  walker w = { 20, 30, 5, 2 };
  sort_box last = { 0 };
  float worst_pred = 0, worst_stale = 0;
  uint64_t id = 0;
  int changes = 0;
  for (int f = 0; f < 60; f++) {
    bool fresh = f % 3 == 0;
    if (fresh) last = at(&w, f);
    int a = -1;
    sort_tracker_step(t, &last, 1, fresh, &a);
    const sort_track *k = sort_tracker_track(t, a);
    sort_box truth = at(&w, f);
    if (f >= 15 && !fresh) {
      worst_pred = fmaxf(worst_pred, hypotf(k->box.x - truth.x, k->box.y - truth.y));
      worst_stale = fmaxf(worst_stale, hypotf(last.x - truth.x, last.y - truth.y));
    }
    if (k->confirmed) {
      if (id && k->id != id) changes++;
      id = k->id;
    }
  }
  CHECK(changes == 0 && worst_pred < 2.0f && worst_pred < worst_stale / 3,
        "skipped frames: prediction off by %.2f px at worst (repeating the old box: %.2f), %d id change(s)",
        worst_pred, worst_stale, changes);
  printf("ok   detector every 3rd frame: predicted boxes within %.2f px of the truth (repeated boxes %.1f px)\n",
         worst_pred, worst_stale);
  sort_tracker_free(t);
}

int main(void)
{
  test_crossing();
  occlusion(10, 30, true);
  occlusion(40, 30, false);
  test_enter_leave();
  test_skipped_frames();
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
