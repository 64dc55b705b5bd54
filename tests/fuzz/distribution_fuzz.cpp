// libFuzzer target for the shape-distribution loader (datasets/distribution.h): arbitrary text ->
// ParseJsonText -> ParseDistribution and ParseInlineDistribution against the built-in workload the file names
// (bert_ffn when it names none or an unknown one), then what tune and evaluate do with a distribution: Describe,
// Sample, SampleDistinct and CoveringShapes (datasets/shape_cover.h). Invariants from distribution.h: every draw
// (and every covering shape) passes the workload's CheckDims, and the normalised weights of a categorical or
// histogram spec are finite, not negative, and sum to 1.
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/distribution/.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "datasets/distribution.h"
#include "datasets/shape_cover.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using crmap::Json;

const crmap::Workload& WorkloadFor(const Json& json) {
  if (json.is_object()) {
    auto it = json.find("workload");
    if (it != json.end() && it->is_string()) {
      if (const crmap::Workload* named = crmap::fuzz::FindWorkload(it->get<std::string>())) return *named;
    }
  }
  return *crmap::fuzz::FindWorkload("bert_ffn");
}

// distribution.h: the weights of a spec are normalised to sum 1.
void CheckWeights(const std::vector<double>& weights) {
  double sum = 0;
  for (double w : weights) {
    // >= 0, not > 0: a weight 1e-300 next to 1e300 rightly normalises to 0.
    if (!(w >= 0) || !std::isfinite(w)) crmap::fuzz::Violated("a normalised weight is negative or not finite");
    sum += w;
  }
  if (!weights.empty() && !(std::fabs(sum - 1) < 1e-6)) crmap::fuzz::Violated("normalised weights do not sum to 1");
}

void Exercise(const crmap::ShapeDistribution& distribution, const crmap::Workload& workload, bool cover) {
  (void)distribution.Describe();
  for (const auto& [name, spec] : distribution.dims()) {
    if (spec.kind == crmap::DimSpecKind::kCategorical) CheckWeights(spec.weights);
    if (spec.kind == crmap::DimSpecKind::kHistogram) {
      std::vector<double> weights;
      for (const crmap::HistogramBin& bin : spec.bins) weights.push_back(bin.weight);
      CheckWeights(weights);
    }
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 32; ++i) {
    crmap::Dims dims = distribution.Sample(rng);
    if (!workload.CheckDims(dims).ok()) crmap::fuzz::Violated("a sampled shape is outside the workload's ranges");
  }
  (void)crmap::SampleDistinct(distribution, 8, 1, 200);
  if (cover)
    for (const crmap::Dims& dims : crmap::CoveringShapes(distribution, 4, 1))
      if (!workload.CheckDims(dims).ok()) crmap::fuzz::Violated("a covering shape is outside the workload's ranges");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto json = crmap::ParseJsonText(crmap::fuzz::InputText(data, size), "fuzz.json");
  if (!json.ok()) return 0;
  const crmap::Workload& workload = WorkloadFor(*json);
  // A cover draws a pool of 256 shapes and searches it (about 1 ms): inputs whose length is a multiple of 16 run
  // it, which keeps the run short and the target a function of its input.
  const bool cover = size % 16 == 0;
  auto distribution = crmap::ParseDistribution(*json, "fuzz.json", workload);
  if (distribution.ok()) Exercise(*distribution, workload, cover);
  auto inline_distribution = crmap::ParseInlineDistribution(*json, "phase #0", workload, "inline");
  if (inline_distribution.ok()) Exercise(*inline_distribution, workload, cover);
  return 0;
}
