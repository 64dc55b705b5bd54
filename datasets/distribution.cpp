#include "datasets/distribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "datasets/catalog.h"

namespace crmap {

namespace {

constexpr const char* kDistributionFormat = "crmap.distribution/1";
constexpr double kPi = 3.14159265358979323846;

// Floor and ceiling of a / b for b > 0, correct for negative a too.
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && (a < 0)); }
int64_t CeilDiv(int64_t a, int64_t b) { return a / b + ((a % b != 0) && (a > 0)); }

// "64", "0.5", "1.5e+06": short, for descriptions.
std::string FormatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

std::string RangeText(const DimRange& range) {
  return "[" + std::to_string(range.min) + ", " + std::to_string(range.max) + "]";
}

// Index in [0, count) drawn with probability weight_of(i) (normalised weights, summing to 1).
template <typename WeightOf>
size_t PickIndex(std::mt19937_64& rng, size_t count, WeightOf weight_of) {
  double u = UniformUnit(rng);
  double cumulative = 0;
  for (size_t i = 0; i < count; ++i) {
    cumulative += weight_of(i);
    if (u < cumulative) return i;
  }
  return count - 1;  // rounding left u at or just above the last cumulative sum
}

// An integer-valued JSON number (2 or 2.0), like GetInt but for array elements.
bool AsInt(const Json& value, int64_t* out) {
  if (value.is_number_integer()) {
    *out = value.get<int64_t>();
    return true;
  }
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) {
      *out = static_cast<int64_t>(d);
      return true;
    }
  }
  return false;
}

bool IsPositiveFinite(const Json& value) {
  return value.is_number() && std::isfinite(value.get<double>()) && value.get<double>() > 0;
}

Status Invalid(const std::string& where, const std::string& message) {
  return Status::InvalidArgument(where + ": " + message);
}

void Normalise(std::vector<double>* weights) {
  // Scaled by the largest weight first, so that weights near DBL_MAX cannot overflow the sum to infinity
  // (which would make every normalised weight 0 and one value the only one ever drawn).
  double largest = 0;
  for (double w : *weights) largest = std::max(largest, w);
  double sum = 0;
  for (double& w : *weights) sum += (w /= largest);
  for (double& w : *weights) w /= sum;
}

}  // namespace

const char* DimSpecKindName(DimSpecKind kind) {
  switch (kind) {
    case DimSpecKind::kCategorical: return "categorical";
    case DimSpecKind::kLognormal: return "lognormal";
    case DimSpecKind::kHistogram: return "histogram";
    case DimSpecKind::kFixed: return "fixed";
  }
  return "";
}

double UniformUnit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

int64_t UniformInt(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == std::numeric_limits<uint64_t>::max()) return static_cast<int64_t>(rng());
  uint64_t range = span + 1;
  // Reject the top partial block so every residue is equally likely.
  uint64_t limit = std::numeric_limits<uint64_t>::max() - (std::numeric_limits<uint64_t>::max() % range + 1) % range;
  uint64_t x;
  do {
    x = rng();
  } while (x > limit);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + x % range);
}

double StandardNormal(std::mt19937_64& rng) {
  double u1 = 1.0 - UniformUnit(rng);  // (0, 1]: log is finite
  double u2 = UniformUnit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

double Exponential(std::mt19937_64& rng, double rate) { return -std::log(1.0 - UniformUnit(rng)) / rate; }

int64_t DimSpec::Sample(std::mt19937_64& rng) const {
  switch (kind) {
    case DimSpecKind::kCategorical:
      return values[PickIndex(rng, values.size(), [this](size_t i) { return weights[i]; })];
    case DimSpecKind::kLognormal: {
      double x = median * std::exp(sigma * StandardNormal(rng));
      x = std::clamp(x, static_cast<double>(min), static_cast<double>(max));
      int64_t rounded = std::llround(x / static_cast<double>(multiple_of)) * multiple_of;
      // The multiples of multiple_of inside [min, max]; parsing checked there is at least one.
      return std::clamp(rounded, CeilDiv(min, multiple_of) * multiple_of, FloorDiv(max, multiple_of) * multiple_of);
    }
    case DimSpecKind::kHistogram: {
      const HistogramBin& bin = bins[PickIndex(rng, bins.size(), [this](size_t i) { return bins[i].weight; })];
      return UniformInt(rng, CeilDiv(bin.lo, multiple_of), FloorDiv(bin.hi, multiple_of)) * multiple_of;
    }
    case DimSpecKind::kFixed:
      return value;
  }
  return value;
}

std::string DimSpec::Describe() const {
  std::string multiple = multiple_of > 1 ? ", multiple of " + std::to_string(multiple_of) : "";
  switch (kind) {
    case DimSpecKind::kCategorical: {
      std::string out = "categorical(";
      for (size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + std::to_string(values[i]) + ": " + FormatNumber(weights[i]);
      return out + ")";
    }
    case DimSpecKind::kLognormal:
      return "lognormal(median " + FormatNumber(median) + ", sigma " + FormatNumber(sigma) + ") in [" +
             std::to_string(min) + ", " + std::to_string(max) + "]" + multiple;
    case DimSpecKind::kHistogram: {
      std::string out = "histogram(";
      for (size_t i = 0; i < bins.size(); ++i)
        out += (i ? ", " : "") + std::string("[") + std::to_string(bins[i].lo) + ", " + std::to_string(bins[i].hi) +
               "]: " + FormatNumber(bins[i].weight);
      return out + ")" + multiple;
    }
    case DimSpecKind::kFixed:
      return "fixed(" + std::to_string(value) + ")";
  }
  return "";
}

Dims ShapeDistribution::Sample(std::mt19937_64& rng) const {
  Dims dims;
  for (const auto& [name, spec] : dims_) dims[name] = spec.Sample(rng);
  return dims;
}

std::string ShapeDistribution::Describe() const {
  std::string out;
  for (const auto& [name, spec] : dims_) {
    if (!out.empty()) out += '\n';
    out += name + " ~ " + spec.Describe();
  }
  return out;
}

// Builds ShapeDistributions from JSON; a class only so that it may be ShapeDistribution's friend.
class DistributionParser {
 public:
  // `strict`: format, name and workload are required (a file); otherwise optional (inline).
  static Result<ShapeDistribution> Parse(const Json& json, const std::string& where, const Workload& workload,
                                         bool strict, const std::string& default_name) {
    if (!json.is_object()) return Invalid(where, "a distribution must be a JSON object");
    CRMAP_RETURN_IF_ERROR(CheckKnownFields(json, {"format", "name", "workload", "description", "dims"}, where));
    if (strict || json.contains("format")) {
      CRMAP_ASSIGN_OR_RETURN(std::string format, GetString(json, "format", where));
      if (format != kDistributionFormat)
        return Invalid(where, "field 'format' must be \"" + std::string(kDistributionFormat) + "\", got \"" + format +
                                  "\"");
    }
    ShapeDistribution distribution;
    if (strict) {
      CRMAP_ASSIGN_OR_RETURN(distribution.name_, GetString(json, "name", where));
    } else {
      CRMAP_ASSIGN_OR_RETURN(distribution.name_, GetStringOr(json, "name", default_name, where));
    }
    if (distribution.name_.empty()) return Invalid(where, "field 'name' must not be empty");
    if (strict || json.contains("workload")) {
      CRMAP_ASSIGN_OR_RETURN(std::string workload_name, GetString(json, "workload", where));
      if (workload_name != workload.name())
        return Invalid(where, "field 'workload' is '" + workload_name + "' but this distribution is being used with "
                                  "workload '" + workload.name() + "'");
    }
    distribution.workload_name_ = workload.name();
    CRMAP_ASSIGN_OR_RETURN(distribution.description_, GetStringOr(json, "description", "", where));

    auto dims = json.find("dims");
    if (dims == json.end()) return Invalid(where, "missing field 'dims'");
    if (!dims->is_object()) return Invalid(where, "field 'dims' must be an object of dim name -> spec");
    std::vector<std::string> declared;
    for (const auto& [name, range] : workload.dims()) declared.push_back(name + " in " + RangeText(range));
    for (const auto& item : dims->items()) {
      auto range = workload.dims().find(item.key());
      if (range == workload.dims().end())
        return Invalid(where, "dims: workload '" + workload.name() + "' has no dim '" + item.key() +
                                  "'; its dims: " + JoinNames(declared));
      CRMAP_ASSIGN_OR_RETURN(DimSpec spec, ParseSpec(item.value(), where + ": dims." + item.key(), range->second));
      distribution.dims_[item.key()] = std::move(spec);
    }
    for (const auto& [name, range] : workload.dims())
      if (!distribution.dims_.count(name))
        return Invalid(where, "dims: missing dim '" + name + "'; workload '" + workload.name() +
                                  "' needs a spec for each of: " + JoinNames(declared));
    return distribution;
  }

 private:
  static Result<DimSpec> ParseSpec(const Json& json, const std::string& where, const DimRange& range) {
    if (!json.is_object())
      return Invalid(where, "a dim spec must be an object with a 'type' (categorical, lognormal, histogram, fixed)");
    CRMAP_ASSIGN_OR_RETURN(std::string type, GetString(json, "type", where));
    if (type == "categorical") return ParseCategorical(json, where, range);
    if (type == "lognormal") return ParseLognormal(json, where, range);
    if (type == "histogram") return ParseHistogram(json, where, range);
    if (type == "fixed") return ParseFixed(json, where, range);
    return Invalid(where, "field 'type' is '" + type + "'; allowed: categorical, lognormal, histogram, fixed");
  }

  static Status CheckInRange(int64_t value, const DimRange& range, const std::string& where,
                             const std::string& field) {
    if (value < range.min || value > range.max)
      return Invalid(where, "field '" + field + "' = " + std::to_string(value) + " is outside the workload's range " +
                                RangeText(range));
    return Status::Ok();
  }

  static Result<int64_t> ParseMultipleOf(const Json& json, const std::string& where) {
    CRMAP_ASSIGN_OR_RETURN(int64_t multiple_of, GetIntOr(json, "multiple_of", 1, where));
    if (multiple_of < 1)
      return Invalid(where, "field 'multiple_of' must be an integer >= 1, got " + std::to_string(multiple_of));
    return multiple_of;
  }

  static Result<DimSpec> ParseCategorical(const Json& json, const std::string& where, const DimRange& range) {
    CRMAP_RETURN_IF_ERROR(CheckKnownFields(json, {"type", "values", "weights"}, where));
    DimSpec spec;
    spec.kind = DimSpecKind::kCategorical;
    auto values = json.find("values");
    if (values == json.end()) return Invalid(where, "missing field 'values'");
    if (!values->is_array() || values->empty())
      return Invalid(where, "field 'values' must be a non-empty array of integers in " + RangeText(range));
    std::set<int64_t> seen;
    for (size_t i = 0; i < values->size(); ++i) {
      int64_t value = 0;
      std::string field = "values[" + std::to_string(i) + "]";
      if (!AsInt((*values)[i], &value)) return Invalid(where, "field '" + field + "' must be an integer");
      CRMAP_RETURN_IF_ERROR(CheckInRange(value, range, where, field));
      if (!seen.insert(value).second)
        return Invalid(where, "field 'values' lists " + std::to_string(value) + " twice; values must be distinct");
      spec.values.push_back(value);
    }
    auto weights = json.find("weights");
    if (weights == json.end()) {
      spec.weights.assign(spec.values.size(), 1.0);
    } else {
      if (!weights->is_array() || weights->size() != spec.values.size())
        return Invalid(where, "field 'weights' must be an array of " + std::to_string(spec.values.size()) +
                                  " positive numbers, one per value");
      for (size_t i = 0; i < weights->size(); ++i) {
        if (!IsPositiveFinite((*weights)[i]))
          return Invalid(where, "field 'weights[" + std::to_string(i) + "]' must be a positive finite number, got " +
                                    (*weights)[i].dump());
        spec.weights.push_back((*weights)[i].get<double>());
      }
    }
    Normalise(&spec.weights);
    return spec;
  }

  static Result<DimSpec> ParseLognormal(const Json& json, const std::string& where, const DimRange& range) {
    CRMAP_RETURN_IF_ERROR(CheckKnownFields(json, {"type", "median", "sigma", "min", "max", "multiple_of"}, where));
    DimSpec spec;
    spec.kind = DimSpecKind::kLognormal;
    CRMAP_ASSIGN_OR_RETURN(spec.median, GetNumber(json, "median", where));
    CRMAP_ASSIGN_OR_RETURN(spec.sigma, GetNumber(json, "sigma", where));
    if (spec.sigma <= 0) return Invalid(where, "field 'sigma' must be > 0, got " + FormatNumber(spec.sigma));
    CRMAP_ASSIGN_OR_RETURN(spec.min, GetIntOr(json, "min", range.min, where));
    CRMAP_ASSIGN_OR_RETURN(spec.max, GetIntOr(json, "max", range.max, where));
    CRMAP_RETURN_IF_ERROR(CheckInRange(spec.min, range, where, "min"));
    CRMAP_RETURN_IF_ERROR(CheckInRange(spec.max, range, where, "max"));
    if (spec.min > spec.max)
      return Invalid(where, "field 'min' (" + std::to_string(spec.min) + ") must be <= field 'max' (" +
                                std::to_string(spec.max) + ")");
    if (spec.median < static_cast<double>(spec.min) || spec.median > static_cast<double>(spec.max))
      return Invalid(where, "field 'median' = " + FormatNumber(spec.median) + " must lie in [min, max] = [" +
                                std::to_string(spec.min) + ", " + std::to_string(spec.max) + "]");
    CRMAP_ASSIGN_OR_RETURN(spec.multiple_of, ParseMultipleOf(json, where));
    if (CeilDiv(spec.min, spec.multiple_of) > FloorDiv(spec.max, spec.multiple_of))
      return Invalid(where, "field 'multiple_of' = " + std::to_string(spec.multiple_of) + " has no multiple in [" +
                                std::to_string(spec.min) + ", " + std::to_string(spec.max) + "]");
    return spec;
  }

  static Result<DimSpec> ParseHistogram(const Json& json, const std::string& where, const DimRange& range) {
    CRMAP_RETURN_IF_ERROR(CheckKnownFields(json, {"type", "bins", "multiple_of"}, where));
    DimSpec spec;
    spec.kind = DimSpecKind::kHistogram;
    CRMAP_ASSIGN_OR_RETURN(spec.multiple_of, ParseMultipleOf(json, where));
    auto bins = json.find("bins");
    if (bins == json.end()) return Invalid(where, "missing field 'bins'");
    if (!bins->is_array() || bins->empty())
      return Invalid(where, "field 'bins' must be a non-empty array of {\"lo\", \"hi\", \"weight\"} objects");
    std::vector<double> weights;
    for (size_t i = 0; i < bins->size(); ++i) {
      std::string bin_where = where + ": bins[" + std::to_string(i) + "]";
      const Json& item = (*bins)[i];
      CRMAP_RETURN_IF_ERROR(CheckKnownFields(item, {"lo", "hi", "weight"}, bin_where));
      HistogramBin bin;
      CRMAP_ASSIGN_OR_RETURN(bin.lo, GetInt(item, "lo", bin_where));
      CRMAP_ASSIGN_OR_RETURN(bin.hi, GetInt(item, "hi", bin_where));
      CRMAP_ASSIGN_OR_RETURN(bin.weight, GetNumber(item, "weight", bin_where));
      CRMAP_RETURN_IF_ERROR(CheckInRange(bin.lo, range, bin_where, "lo"));
      CRMAP_RETURN_IF_ERROR(CheckInRange(bin.hi, range, bin_where, "hi"));
      if (bin.lo > bin.hi)
        return Invalid(bin_where, "field 'lo' (" + std::to_string(bin.lo) + ") must be <= field 'hi' (" +
                                      std::to_string(bin.hi) + ")");
      if (bin.weight <= 0) return Invalid(bin_where, "field 'weight' must be > 0, got " + FormatNumber(bin.weight));
      if (CeilDiv(bin.lo, spec.multiple_of) > FloorDiv(bin.hi, spec.multiple_of))
        return Invalid(bin_where, "no multiple of " + std::to_string(spec.multiple_of) + " (field 'multiple_of') in [" +
                                      std::to_string(bin.lo) + ", " + std::to_string(bin.hi) + "]");
      weights.push_back(bin.weight);
      spec.bins.push_back(bin);
    }
    Normalise(&weights);
    for (size_t i = 0; i < weights.size(); ++i) spec.bins[i].weight = weights[i];
    return spec;
  }

  static Result<DimSpec> ParseFixed(const Json& json, const std::string& where, const DimRange& range) {
    CRMAP_RETURN_IF_ERROR(CheckKnownFields(json, {"type", "value"}, where));
    DimSpec spec;
    spec.kind = DimSpecKind::kFixed;
    CRMAP_ASSIGN_OR_RETURN(spec.value, GetInt(json, "value", where));
    CRMAP_RETURN_IF_ERROR(CheckInRange(spec.value, range, where, "value"));
    return spec;
  }
};

Result<ShapeDistribution> ParseDistribution(const Json& json, const std::string& source, const Workload& workload) {
  return DistributionParser::Parse(json, source, workload, /*strict=*/true, "");
}

Result<ShapeDistribution> ParseInlineDistribution(const Json& json, const std::string& where,
                                                  const Workload& workload, const std::string& default_name) {
  return DistributionParser::Parse(json, where, workload, /*strict=*/false, default_name);
}

Result<ShapeDistribution> LoadDistribution(const std::string& name_or_path, const Workload& workload) {
  CRMAP_ASSIGN_OR_RETURN(DatasetText file, ReadDataset(DatasetKind::kDistribution, name_or_path));
  CRMAP_ASSIGN_OR_RETURN(Json json, ParseJsonText(file.text, file.source));
  return ParseDistribution(json, file.source, workload);
}

std::vector<Dims> SampleDistinct(const ShapeDistribution& distribution, size_t n, uint64_t seed,
                                 size_t max_attempts) {
  std::mt19937_64 rng(seed);
  std::vector<Dims> shapes;
  std::set<Dims> seen;
  for (size_t attempt = 0; attempt < max_attempts && shapes.size() < n; ++attempt) {
    Dims dims = distribution.Sample(rng);
    if (seen.insert(dims).second) shapes.push_back(std::move(dims));
  }
  return shapes;
}

}  // namespace crmap
