#include "datasets/shape_cover.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace crmap {

namespace {

// Every shape's dims in log2, over the union of the shapes' dim names (a missing dim counts as 1).
std::vector<std::vector<double>> LogCoordinates(const std::vector<Dims>& shapes) {
  std::set<std::string> names;
  for (const Dims& dims : shapes)
    for (const auto& [name, value] : dims) names.insert(name);
  std::vector<std::vector<double>> coordinates;
  coordinates.reserve(shapes.size());
  for (const Dims& dims : shapes) {
    std::vector<double> point;
    for (const std::string& name : names) {
      auto it = dims.find(name);
      point.push_back(it == dims.end() ? 0.0 : std::log2(static_cast<double>(std::max<int64_t>(it->second, 1))));
    }
    coordinates.push_back(std::move(point));
  }
  return coordinates;
}

double Distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

// Pairwise distances of a pool and the k-medoids search over them.
class MedoidSearch {
 public:
  explicit MedoidSearch(const std::vector<Dims>& pool) : size_(pool.size()), distance_(size_ * size_) {
    auto coordinates = LogCoordinates(pool);
    for (size_t i = 0; i < size_; ++i)
      for (size_t j = i + 1; j < size_; ++j)
        distance_[i * size_ + j] = distance_[j * size_ + i] = Distance(coordinates[i], coordinates[j]);
  }

  // Greedy from `chosen` (pool indices already taken): each pick is the shape that lowers the total distance most
  // (the first such in pool order), until n are chosen.
  std::vector<size_t> Greedy(size_t n, std::vector<size_t> chosen = {}) const {
    std::vector<double> nearest(size_, std::numeric_limits<double>::infinity());
    std::vector<bool> taken(size_, false);
    for (size_t c : chosen) {
      taken[c] = true;
      for (size_t j = 0; j < size_; ++j) nearest[j] = std::min(nearest[j], At(c, j));
    }
    while (chosen.size() < n) {
      size_t best = size_;
      double best_total = std::numeric_limits<double>::infinity();
      for (size_t c = 0; c < size_; ++c) {
        if (taken[c]) continue;
        double total = 0;
        for (size_t j = 0; j < size_; ++j) total += std::min(nearest[j], At(c, j));
        if (best == size_ || total < best_total - 1e-9) {  // ties: the first in pool order, as in Refine
          best_total = total;
          best = c;
        }
      }
      taken[best] = true;
      chosen.push_back(best);
      for (size_t j = 0; j < size_; ++j) nearest[j] = std::min(nearest[j], At(best, j));
    }
    return chosen;
  }

  // Single swaps (a chosen shape for an unchosen one) while one lowers the total, at most `max_passes` passes; the
  // first `fixed` chosen shapes stay.
  void Refine(std::vector<size_t>* chosen, int max_passes, size_t fixed = 0) const {
    std::vector<bool> taken(size_, false);
    for (size_t c : *chosen) taken[c] = true;
    double total = Total(*chosen);
    for (int pass = 0; pass < max_passes; ++pass) {
      bool improved = false;
      for (size_t slot = fixed; slot < chosen->size(); ++slot) {
        // Each pool shape's distance to the chosen shapes other than this slot's.
        std::vector<double> others(size_, std::numeric_limits<double>::infinity());
        for (size_t k = 0; k < chosen->size(); ++k)
          if (k != slot)
            for (size_t j = 0; j < size_; ++j) others[j] = std::min(others[j], At((*chosen)[k], j));
        size_t best = size_;
        double best_total = total;
        for (size_t c = 0; c < size_; ++c) {
          if (taken[c]) continue;
          double swapped = 0;
          for (size_t j = 0; j < size_; ++j) swapped += std::min(others[j], At(c, j));
          if (swapped < best_total - 1e-9) {
            best_total = swapped;
            best = c;
          }
        }
        if (best == size_) continue;
        taken[(*chosen)[slot]] = false;
        taken[best] = true;
        (*chosen)[slot] = best;
        total = best_total;
        improved = true;
      }
      if (!improved) return;
    }
  }

 private:
  double At(size_t i, size_t j) const { return distance_[i * size_ + j]; }
  double Total(const std::vector<size_t>& chosen) const {
    double total = 0;
    for (size_t j = 0; j < size_; ++j) {
      double nearest = std::numeric_limits<double>::infinity();
      for (size_t c : chosen) nearest = std::min(nearest, At(c, j));
      total += nearest;
    }
    return total;
  }

  size_t size_;
  std::vector<double> distance_;
};

// The cover's pool for n shapes.
std::vector<Dims> CoverPool(const ShapeDistribution& distribution, size_t n, uint64_t seed) {
  const size_t draws = std::min(kCoverPoolMaxDraws, std::max(kCoverPoolMinDraws, kCoverPoolDrawsPerShape * n));
  return SampleDistinct(distribution, draws, seed, draws);
}

std::vector<Dims> ShapesAt(const std::vector<Dims>& pool, const std::vector<size_t>& indices) {
  std::vector<Dims> shapes;
  for (size_t index : indices) shapes.push_back(pool[index]);
  return shapes;
}

}  // namespace

std::vector<Dims> CoveringShapes(const ShapeDistribution& distribution, size_t n, uint64_t seed) {
  n = std::min(n, kMaxCoveringShapes);
  if (n == 0) return {};
  std::vector<Dims> pool = CoverPool(distribution, n, seed);
  if (pool.size() <= n) return pool;
  MedoidSearch search(pool);
  std::vector<size_t> chosen = search.Greedy(n);
  search.Refine(&chosen, /*max_passes=*/8);
  return ShapesAt(pool, chosen);
}

std::vector<size_t> EdgeShapeIndices(const std::vector<Dims>& pool) {
  std::set<std::string> names;
  for (const Dims& dims : pool)
    for (const auto& [name, value] : dims) names.insert(name);
  std::vector<size_t> edges;
  auto add = [&](size_t index) {
    if (std::find(edges.begin(), edges.end(), index) == edges.end()) edges.push_back(index);
  };
  for (const std::string& name : names) {
    auto value = [&](size_t i) {
      auto it = pool[i].find(name);
      return it == pool[i].end() ? int64_t{1} : it->second;  // a missing dim counts as 1, as in the distances
    };
    size_t smallest = 0, largest = 0;
    for (size_t i = 1; i < pool.size(); ++i) {
      if (value(i) < value(smallest)) smallest = i;
      if (value(i) > value(largest)) largest = i;
    }
    add(smallest);
    add(largest);
  }
  return edges;
}

std::vector<Dims> EdgesFirstShapes(const ShapeDistribution& distribution, size_t n, uint64_t seed) {
  n = std::min(n, kMaxCoveringShapes);
  if (n == 0) return {};
  std::vector<Dims> pool = CoverPool(distribution, n, seed);
  if (pool.size() <= n) return pool;
  std::vector<size_t> edges = EdgeShapeIndices(pool);
  if (edges.size() >= n) {
    edges.resize(n);
    return ShapesAt(pool, edges);
  }
  MedoidSearch search(pool);
  std::vector<size_t> chosen = search.Greedy(n, edges);
  search.Refine(&chosen, /*max_passes=*/8, /*fixed=*/edges.size());
  return ShapesAt(pool, chosen);
}

double MeanCoverDistance(const std::vector<Dims>& pool, const std::vector<Dims>& chosen) {
  if (pool.empty() || chosen.empty()) return 0;
  std::vector<Dims> all = pool;
  all.insert(all.end(), chosen.begin(), chosen.end());
  auto coordinates = LogCoordinates(all);
  double total = 0;
  for (size_t j = 0; j < pool.size(); ++j) {
    double nearest = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < chosen.size(); ++c)
      nearest = std::min(nearest, Distance(coordinates[j], coordinates[pool.size() + c]));
    total += nearest;
  }
  return total / static_cast<double>(pool.size());
}

}  // namespace crmap
