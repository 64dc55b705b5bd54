#include "datasets/scenario.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "datasets/catalog.h"

namespace crmap {

namespace {

constexpr const char* kScenarioFormat = "crmap.scenario/1";

Status Invalid(const std::string& where, const std::string& message) {
  return Status::InvalidArgument(where + ": " + message);
}

// The same rule ReadDataset uses to tell a path from a built-in name.
bool LooksLikePath(const std::string& name) {
  return name.find('/') != std::string::npos ||
         (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
}

std::string FormatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

Result<double> GetPositive(const Json& json, const std::string& key, const std::string& where) {
  CRMAP_ASSIGN_OR_RETURN(double value, GetNumber(json, key, where));
  if (value <= 0) return Invalid(where, "field '" + key + "' must be > 0, got " + FormatNumber(value));
  return value;
}

}  // namespace

double Scenario::total_duration_s() const {
  double total = 0;
  for (const auto& phase : phases_) total += phase.duration_s;
  return total;
}

double Scenario::phase_start_s(size_t index) const {
  double start = 0;
  for (size_t i = 0; i < index && i < phases_.size(); ++i) start += phases_[i].duration_s;
  return start;
}

// Builds Scenarios from JSON; a class only so that it may be Scenario's friend.
class ScenarioParser {
 public:
  static Result<Scenario> Parse(const Json& json, const std::string& source, const Workload& workload,
                                const std::string& base_dir) {
    if (!json.is_object()) return Invalid(source, "a scenario must be a JSON object");
    CRMAP_RETURN_IF_ERROR(
        CheckKnownFields(json, {"format", "name", "workload", "description", "streams", "phases"}, source));
    CRMAP_ASSIGN_OR_RETURN(std::string format, GetString(json, "format", source));
    if (format != kScenarioFormat)
      return Invalid(source, "field 'format' must be \"" + std::string(kScenarioFormat) + "\", got \"" + format + "\"");
    Scenario scenario;
    CRMAP_ASSIGN_OR_RETURN(scenario.name_, GetString(json, "name", source));
    if (scenario.name_.empty()) return Invalid(source, "field 'name' must not be empty");
    CRMAP_ASSIGN_OR_RETURN(std::string workload_name, GetString(json, "workload", source));
    if (workload_name != workload.name())
      return Invalid(source, "field 'workload' is '" + workload_name + "' but this scenario is being used with "
                             "workload '" + workload.name() + "'");
    scenario.workload_name_ = workload.name();
    CRMAP_ASSIGN_OR_RETURN(scenario.description_, GetStringOr(json, "description", "", source));
    CRMAP_ASSIGN_OR_RETURN(int64_t streams, GetIntOr(json, "streams", 1, source));
    if (streams < 1 || streams > kMaxScenarioStreams)
      return Invalid(source, "field 'streams' must be an integer in [1, " + std::to_string(kMaxScenarioStreams) +
                             "], got " + std::to_string(streams));
    scenario.streams_ = static_cast<int>(streams);

    auto phases = json.find("phases");
    if (phases == json.end()) return Invalid(source, "missing field 'phases'");
    if (!phases->is_array() || phases->empty())
      return Invalid(source, "field 'phases' must be a non-empty array of phase objects");
    std::set<std::string> names;
    double expected_requests = 0;
    for (size_t i = 0; i < phases->size(); ++i) {
      std::string where = source + ": phases[" + std::to_string(i) + "]";
      CRMAP_ASSIGN_OR_RETURN(ScenarioPhase phase, ParsePhase((*phases)[i], where, scenario.name_, workload, base_dir));
      if (!names.insert(phase.name).second)
        return Invalid(where, "field 'name' '" + phase.name + "' is used by an earlier phase; phase names must be "
                              "distinct");
      expected_requests += phase.rate_rps * phase.duration_s;
      scenario.phases_.push_back(std::move(phase));
    }
    if (expected_requests > kMaxScenarioRequests)
      return Invalid(source, "the phases' rate_rps * duration_s add up to " + FormatNumber(expected_requests) +
                             " expected requests; at most " + FormatNumber(kMaxScenarioRequests) + " are allowed");
    return scenario;
  }

 private:
  static Result<ScenarioPhase> ParsePhase(const Json& json, const std::string& where,
                                          const std::string& scenario_name, const Workload& workload,
                                          const std::string& base_dir) {
    if (!json.is_object()) return Invalid(where, "a phase must be a JSON object");
    CRMAP_RETURN_IF_ERROR(CheckKnownFields(json, {"name", "duration_s", "rate_rps", "distribution"}, where));
    CRMAP_ASSIGN_OR_RETURN(std::string name, GetString(json, "name", where));
    if (name.empty()) return Invalid(where, "field 'name' must not be empty");
    CRMAP_ASSIGN_OR_RETURN(double duration_s, GetPositive(json, "duration_s", where));
    CRMAP_ASSIGN_OR_RETURN(double rate_rps, GetPositive(json, "rate_rps", where));
    auto spec = json.find("distribution");
    if (spec == json.end()) return Invalid(where, "missing field 'distribution'");
    std::string distribution_where = where + " (" + name + "): distribution";
    if (spec->is_string()) {
      std::string reference = spec->get<std::string>();
      if (LooksLikePath(reference) && !reference.empty() && reference[0] != '/' && !base_dir.empty())
        reference = base_dir + "/" + reference;
      auto distribution = LoadDistribution(reference, workload);
      if (!distribution.ok()) return distribution.status().WithContext(distribution_where);
      return ScenarioPhase{name, duration_s, rate_rps, std::move(distribution).value()};
    }
    if (spec->is_object()) {
      CRMAP_ASSIGN_OR_RETURN(ShapeDistribution distribution,
                             ParseInlineDistribution(*spec, distribution_where, workload, scenario_name + "/" + name));
      return ScenarioPhase{name, duration_s, rate_rps, std::move(distribution)};
    }
    return Invalid(where, "field 'distribution' must be a distribution name, a path to a distribution file, or an "
                          "inline distribution object");
  }
};

Result<Scenario> ParseScenario(const Json& json, const std::string& source, const Workload& workload,
                               const std::string& base_dir) {
  return ScenarioParser::Parse(json, source, workload, base_dir);
}

Result<Scenario> LoadScenario(const std::string& name_or_path, const Workload& workload) {
  CRMAP_ASSIGN_OR_RETURN(DatasetText file, ReadDataset(DatasetKind::kScenario, name_or_path));
  CRMAP_ASSIGN_OR_RETURN(Json json, ParseJsonText(file.text, file.source));
  std::string base_dir;
  if (LooksLikePath(name_or_path)) {
    size_t slash = name_or_path.rfind('/');
    base_dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : name_or_path.substr(0, slash));
  }
  return ParseScenario(json, file.source, workload, base_dir);
}

}  // namespace crmap
