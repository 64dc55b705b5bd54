// TwoNearest: over a stream of (index, distance), the nearest and the next nearest — the first of equals first,
// so the stream's order breaks ties — with no allocation. One rule for the two places that must pick the same two
// tuned shapes: the hook's neighbours' incumbent (runtime/hook/policy_model.cpp, over the policy table) and the
// tuner's leave-one-shape-out folds (tuner/nearest_shape.h, over the tuned shapes), so a fold decides as the hook
// will. Header-only and free of the tuner, as the hook must be. A plain value; thread-compatible.
#pragma once

namespace crmap {

struct TwoNearest {
  long first = -1;   // index of the nearest offered so far; -1 before any offer
  long second = -1;  // index of the next nearest; -1 before two offers
  double first_distance = 0;
  double second_distance = 0;

  // Offers `index` at `distance`. An equal distance never displaces an earlier offer. A NaN distance takes only an
  // empty place and keeps it (nothing compares below NaN); the callers' distances are finite.
  void Offer(long index, double distance) {
    if (first < 0 || distance < first_distance) {
      second = first;
      second_distance = first_distance;
      first = index;
      first_distance = distance;
    } else if (second < 0 || distance < second_distance) {
      second = index;
      second_distance = distance;
    }
  }
};

}  // namespace crmap
