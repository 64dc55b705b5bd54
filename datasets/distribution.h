// ShapeDistribution: a probability distribution over a workload's dims, parsed from a JSON file.
//
// A distribution says which concrete shapes a workload meets in service ("chat prompts are mostly 10-100
// tokens"). Offline, the tuner samples it to choose which shapes to tune; online, scenarios (scenario.h)
// chain distributions into phases to create drift. Each dim has an independent spec of one of four types:
// categorical (listed values with weights), lognormal (continuous draw, clamped and rounded), histogram
// (weighted integer bins) or fixed. The file format is documented in docs/dataset-formats.md.
//
// Sampling uses only the raw output of the caller's std::mt19937_64 (whose sequence the C++ standard fixes)
// and crmap's own transforms, never std::*_distribution (whose output differs between standard libraries):
// the same seed gives the same shapes on every platform.
//
// A ShapeDistribution is an immutable value after parsing; all methods are const and thread-safe (Sample
// mutates only the generator it is given).
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "common/status.h"
#include "common/workload.h"

namespace crmap {

enum class DimSpecKind { kCategorical, kLognormal, kHistogram, kFixed };

// "categorical", "lognormal", "histogram" or "fixed": the "type" field of a dim spec.
const char* DimSpecKindName(DimSpecKind kind);

struct HistogramBin {
  int64_t lo = 0;  // inclusive
  int64_t hi = 0;  // inclusive
  double weight = 0;
};

// The validated spec of one dim. Only the fields of `kind` are meaningful.
struct DimSpec {
  DimSpecKind kind = DimSpecKind::kFixed;
  // categorical: distinct values, weights normalised to sum 1 (same length as values)
  std::vector<int64_t> values;
  std::vector<double> weights;
  // lognormal: exp(N(log(median), sigma^2)), clamped to [min, max]
  double median = 1;
  double sigma = 1;
  int64_t min = 0;
  int64_t max = 0;
  // lognormal and histogram: every sample is a multiple of this (>= 1)
  int64_t multiple_of = 1;
  // histogram: weights normalised to sum 1
  std::vector<HistogramBin> bins;
  // fixed
  int64_t value = 0;

  // One draw. Always within the workload's range of the dim (checked at parse time).
  int64_t Sample(std::mt19937_64& rng) const;
  // e.g. "lognormal(median 64, sigma 1) in [1, 2048], multiple of 8"
  std::string Describe() const;
};

class ShapeDistribution {
 public:
  const std::string& name() const { return name_; }
  const std::string& workload_name() const { return workload_name_; }
  const std::string& description() const { return description_; }
  // One spec per workload dim, by dim name.
  const std::map<std::string, DimSpec>& dims() const { return dims_; }

  // One shape; it always passes the workload's CheckDims.
  Dims Sample(std::mt19937_64& rng) const;

  // One line per dim, sorted by dim name, joined by '\n', e.g.
  // "tokens ~ lognormal(median 64, sigma 1) in [1, 2048], multiple of 8".
  std::string Describe() const;

 private:
  // Parsing is the only way to build a non-empty one (it validates everything); a default-constructed
  // distribution has no dims and samples empty Dims.
  friend class DistributionParser;
  std::string name_;
  std::string workload_name_;
  std::string description_;
  std::map<std::string, DimSpec> dims_;
};

// Parses a distribution file's JSON. "format" ("crmap.distribution/1"), "name" and "workload" are required
// and "workload" must equal `workload.name()`. `source` names the file in messages. Returns InvalidArgument
// naming the offending field and what is allowed: unknown fields or types, missing dims, values outside the
// workload's ranges, non-positive or non-finite weights, empty lists.
Result<ShapeDistribution> ParseDistribution(const Json& json, const std::string& source, const Workload& workload);

// The same for a distribution written inline (e.g. inside a scenario phase): "format", "name" and
// "workload" are optional but checked when present; the name defaults to `default_name`.
Result<ShapeDistribution> ParseInlineDistribution(const Json& json, const std::string& where,
                                                  const Workload& workload, const std::string& default_name);

// Reads a built-in distribution by name or a file by path (see ReadDataset in catalog.h) and parses it.
// NotFound for an unknown name or a missing file; InvalidArgument if the file is for another workload (the
// message names both) or malformed.
Result<ShapeDistribution> LoadDistribution(const std::string& name_or_path, const Workload& workload);

// Portable random draws from the raw output of a std::mt19937_64, shared by distributions and traces.
// Uniform in [0, 1) with 53 random bits.
double UniformUnit(std::mt19937_64& rng);
// Uniform integer in [lo, hi] (lo <= hi), unbiased (rejection sampling).
int64_t UniformInt(std::mt19937_64& rng, int64_t lo, int64_t hi);
// Standard normal (Box-Muller; one draw per call).
double StandardNormal(std::mt19937_64& rng);
// Exponential with the given rate (> 0): the gap between Poisson arrivals.
double Exponential(std::mt19937_64& rng, double rate);

// Draws from `distribution` with a generator seeded by `seed` until `n` distinct shapes are found or
// `max_attempts` draws were made; returns them in the order first drawn (fewer than n if the distribution
// has fewer shapes or the attempts ran out). Deterministic for a seed.
std::vector<Dims> SampleDistinct(const ShapeDistribution& distribution, size_t n, uint64_t seed,
                                 size_t max_attempts);

}  // namespace crmap
