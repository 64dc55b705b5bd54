#include "datasets/trace.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <random>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/file_read.h"
#include "common/hash.h"
#include "common/json_fields.h"
#include "datasets/catalog.h"

namespace crmap {

namespace {

// Seeds of the three generators of one phase: arrivals, shapes, streams.
uint64_t PhaseSeed(uint64_t seed, size_t phase, uint64_t purpose) {
  return MixSeed(MixSeed(seed) + 3 * static_cast<uint64_t>(phase) + purpose);
}

// One line of the file, keys in the documented order.
std::string RequestLine(const TraceRequest& request) {
  nlohmann::ordered_json line;
  line["t_us"] = request.arrival_us;
  line["dims"] = Json(request.dims);
  line["stream"] = request.stream;
  line["phase"] = request.phase;
  return line.dump() + "\n";
}

Result<int> GetSmallCount(const Json& json, const std::string& key, const std::string& where) {
  CRMAP_ASSIGN_OR_RETURN(int64_t value, GetIntOr(json, key, 0, where));
  if (value < 0 || value > INT_MAX)
    return Status::InvalidArgument(where + ": field '" + key + "' must be an integer in [0, " +
                                   std::to_string(INT_MAX) + "], got " + std::to_string(value));
  return static_cast<int>(value);
}

Result<TraceRequest> ParseRequestLine(const std::string& line, const std::string& where, const Workload& workload) {
  CRMAP_ASSIGN_OR_RETURN(Json json, ParseJsonText(line, where));
  if (!json.is_object()) return Status::InvalidArgument(where + ": expected a JSON object per line");
  CRMAP_RETURN_IF_ERROR(CheckKnownFields(json, {"t_us", "dims", "stream", "phase"}, where));
  TraceRequest request;
  CRMAP_ASSIGN_OR_RETURN(request.arrival_us, GetNumber(json, "t_us", where));
  if (request.arrival_us < 0) return Status::InvalidArgument(where + ": field 't_us' must be >= 0");
  auto dims = json.find("dims");
  if (dims == json.end()) return Status::InvalidArgument(where + ": missing field 'dims'");
  if (!dims->is_object())
    return Status::InvalidArgument(where + ": field 'dims' must be an object of dim name -> integer");
  for (const auto& item : dims->items()) {
    CRMAP_ASSIGN_OR_RETURN(request.dims[item.key()], GetInt(*dims, item.key(), where + ": dims"));
  }
  CRMAP_RETURN_IF_ERROR(workload.CheckDims(request.dims).WithContext(where));
  CRMAP_ASSIGN_OR_RETURN(request.stream, GetSmallCount(json, "stream", where));
  CRMAP_ASSIGN_OR_RETURN(request.phase, GetSmallCount(json, "phase", where));
  return request;
}

}  // namespace

std::vector<TraceRequest> GenerateTrace(const Scenario& scenario, uint64_t seed) {
  std::vector<TraceRequest> trace;
  const auto& phases = scenario.phases();
  for (size_t p = 0; p < phases.size(); ++p) {
    const ScenarioPhase& phase = phases[p];
    std::mt19937_64 arrivals(PhaseSeed(seed, p, 0));
    std::mt19937_64 shapes(PhaseSeed(seed, p, 1));
    std::mt19937_64 streams(PhaseSeed(seed, p, 2));
    double start_s = scenario.phase_start_s(p);
    // The next phase starts at exactly this value (phase_start_s sums the same terms in the same order).
    double end_us = (start_s + phase.duration_s) * 1e6;
    double rate_per_us = phase.rate_rps / 1e6;
    double t_us = start_s * 1e6;
    for (;;) {
      t_us += Exponential(arrivals, rate_per_us);
      if (t_us >= end_us) break;
      TraceRequest request;
      request.arrival_us = t_us;
      request.dims = phase.distribution.Sample(shapes);
      request.stream = static_cast<int>(UniformInt(streams, 0, scenario.streams() - 1));
      request.phase = static_cast<int>(p);
      trace.push_back(std::move(request));
    }
  }
  return trace;
}

Status WriteTraceJsonl(const std::string& path, const std::vector<TraceRequest>& trace) {
  if (path.empty()) return Status::InvalidArgument("trace path is empty");
  std::string text;
  for (const auto& request : trace) text += RequestLine(request);
  return WriteFileAtomically(path, text);
}

Result<std::vector<TraceRequest>> ReadTraceJsonl(const std::string& path, const Workload& workload) {
  CRMAP_ASSIGN_OR_RETURN(std::string text, ReadFileCapped(path, kMaxTraceFileBytes, "request trace"));
  std::vector<TraceRequest> trace;
  size_t begin = 0;
  for (size_t number = 1; begin < text.size(); ++number) {
    size_t end = text.find('\n', begin);
    bool terminated = end != std::string::npos;
    if (!terminated) end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::string where = path + ": line " + std::to_string(number);
    auto request = ParseRequestLine(line, where, workload);
    if (!request.ok()) {
      if (!terminated && !ParseJsonText(line, where).ok())
        return Status::InvalidArgument(where + " is torn: the last line has no terminating newline and is not "
                                       "valid JSON (was the file cut off while being written?)");
      return request.status();
    }
    if (!trace.empty() && request->arrival_us < trace.back().arrival_us)
      return Status::InvalidArgument(where + ": field 't_us' = " + Json(request->arrival_us).dump() +
                                     " is earlier than the previous request's " +
                                     Json(trace.back().arrival_us).dump() + "; arrivals must be non-decreasing");
    trace.push_back(std::move(request).value());
  }
  return trace;
}

}  // namespace crmap
