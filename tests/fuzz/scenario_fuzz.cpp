// libFuzzer target for the drift-scenario loader (datasets/scenario.h): arbitrary text -> ParseJsonText ->
// ParseScenario against the built-in workload the file names (bert_ffn when it names none or an unknown one).
// Phases may name built-in distributions (embedded) or inline ones. For a scenario that parses: the phase
// start times, and for a small one (at most 2000 expected requests) GenerateTrace, whose requests must be in
// arrival order, on valid streams and phases, with dims the workload accepts (trace.h's promises).
// Inputs naming /dev, /proc or /sys paths are skipped (fuzz_support.h: NamesSpecialFile).
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/scenario/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/json_fields.h"
#include "datasets/scenario.h"
#include "datasets/trace.h"
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

void Exercise(const crmap::Scenario& scenario, const crmap::Workload& workload) {
  double expected_requests = 0;
  for (size_t i = 0; i < scenario.phases().size(); ++i) {
    const crmap::ScenarioPhase& phase = scenario.phases()[i];
    (void)scenario.phase_start_s(i);
    (void)phase.distribution.Describe();
    expected_requests += phase.rate_rps * phase.duration_s;
  }
  (void)scenario.total_duration_s();
  if (!(expected_requests <= 2000)) return;
  std::vector<crmap::TraceRequest> trace = crmap::GenerateTrace(scenario, 1);
  for (size_t i = 0; i < trace.size(); ++i) {
    const crmap::TraceRequest& request = trace[i];
    if (i > 0 && request.arrival_us < trace[i - 1].arrival_us) crmap::fuzz::Violated("trace out of arrival order");
    if (request.stream < 0 || request.stream >= scenario.streams()) crmap::fuzz::Violated("request stream out of range");
    if (request.phase < 0 || static_cast<size_t>(request.phase) >= scenario.phases().size())
      crmap::fuzz::Violated("request phase out of range");
    if (!workload.CheckDims(request.dims).ok()) crmap::fuzz::Violated("request dims outside the workload's ranges");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto json = crmap::ParseJsonText(crmap::fuzz::InputText(data, size), "fuzz.json");
  if (!json.ok() || crmap::fuzz::NamesSpecialFile(*json)) return 0;
  const crmap::Workload& workload = WorkloadFor(*json);
  auto scenario = crmap::ParseScenario(*json, "fuzz.json", workload);
  if (scenario.ok()) Exercise(*scenario, workload);
  return 0;
}
