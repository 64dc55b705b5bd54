#include "tuner/nearest_shape.h"

#include <algorithm>
#include <cmath>

#include "common/two_nearest.h"

namespace crmap {

NearestShapes::NearestShapes(std::vector<Dims> shapes) : shapes_(std::move(shapes)) {
  for (const Dims& shape : shapes_) {
    std::vector<std::pair<std::string, double>> logs;
    for (const auto& [name, value] : shape) logs.emplace_back(name, std::log2(static_cast<double>(value)));
    log2_.push_back(std::move(logs));  // Dims is ordered by name, so the pairs are too
  }
}

double NearestShapes::SquaredDistance(size_t shape, const Dims& dims) const {
  const auto& logs = log2_[shape];
  double distance = 0;
  for (const auto& [name, value] : dims) {
    auto it = std::lower_bound(logs.begin(), logs.end(), name,
                               [](const std::pair<std::string, double>& entry, const std::string& key) {
                                 return entry.first < key;
                               });
    const double shape_log = it != logs.end() && it->first == name ? it->second : 0.0;
    const double diff = std::log2(static_cast<double>(value)) - shape_log;
    distance += diff * diff;
  }
  return distance;
}

size_t NearestShapes::Nearest(const Dims& dims) const {
  TwoNearest nearest;
  for (size_t s = 0; s < log2_.size(); ++s) nearest.Offer(static_cast<long>(s), SquaredDistance(s, dims));
  return nearest.first < 0 ? 0 : static_cast<size_t>(nearest.first);
}

std::pair<size_t, size_t> NearestShapes::NearestTwo(const Dims& dims) const {
  TwoNearest nearest;
  for (size_t s = 0; s < log2_.size(); ++s) nearest.Offer(static_cast<long>(s), SquaredDistance(s, dims));
  return {static_cast<size_t>(nearest.first), nearest.second < 0 ? size_t{1} : static_cast<size_t>(nearest.second)};
}

namespace {

// Where `value` of dim `name` lies against the range that dim takes among `shapes`: -1 below it, 1 above it, 0
// inside it or when none of them has the dim.
int SideOfRange(const std::string& name, int64_t value, const std::vector<Dims>& shapes) {
  bool seen = false;
  int64_t low = 0, high = 0;
  for (const Dims& other : shapes) {
    auto found = other.find(name);
    if (found == other.end()) continue;
    low = seen ? std::min(low, found->second) : found->second;
    high = seen ? std::max(high, found->second) : found->second;
    seen = true;
  }
  if (!seen) return 0;
  return value < low ? -1 : value > high ? 1 : 0;
}

}  // namespace

bool BeyondRangeOf(const Dims& shape, const std::vector<Dims>& shapes) {
  for (const auto& [name, value] : shape)
    if (SideOfRange(name, value, shapes) != 0) return true;
  return false;
}

bool AboveRangeOf(const Dims& shape, const std::vector<Dims>& shapes) {
  bool above = false;
  for (const auto& [name, value] : shape) {
    const int side = SideOfRange(name, value, shapes);
    if (side < 0) return false;
    above = above || side > 0;
  }
  return above;
}

}  // namespace crmap
