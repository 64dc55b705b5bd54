// libFuzzer target for the parsers that turn the CLI's option text into values: the same text is given to
//   --dims        ParseDimsText ("tokens=128,batch=4"; common/workload.h), then every built-in workload's
//                 CheckDims; parsed dims must round-trip through DimsToText;
//   --config, -c  SearchSpace::Parse ("default", "knob=value;...", or a JSON object; search_space.h) on every
//                 built-in workload's space (a fixed 4-thread host); a parsed config must round-trip through
//                 its canonical string and its id, and pass Validate;
//   --shapes      ResolveShapes (tuner/campaign_spec.h) on every built-in workload: a list "tokens=1;tokens=64"
//                 checked against the ranges, or a built-in distribution's name (4 shapes drawn).
//   --baseline    ParsePeerLabels (backend/peer_label.h; "libtorch" alone, the host's default set, is not text
//                 parsing): a parsed list is non-empty, has no peer twice, and each label re-parses to its peer;
//   --agent       SplitAgentList (tuner/agent_list.h) against replay's agent names: a parsed list names only
//                 allowed agents, none twice, and joined with commas is the input.
// cxxopts parses the numeric options.
// Inputs naming /dev, /proc or /sys paths are skipped for --shapes (fuzz_support.h: NamesSpecialFile).
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/cli_options/.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/peer_label.h"
#include "search_space/search_space.h"
#include "tests/fuzz/fuzz_support.h"
#include "tuner/agent_list.h"
#include "tuner/campaign_spec.h"

namespace {

using crmap::fuzz::Violated;

const std::vector<crmap::SearchSpace>& Spaces() {
  static const std::vector<crmap::SearchSpace> spaces = [] {
    std::vector<crmap::SearchSpace> out;
    crmap::SpaceOptions options;
    options.max_threads = 4;
    for (const crmap::Workload& workload : crmap::fuzz::BuiltinWorkloads()) {
      auto space = crmap::SearchSpace::Build(workload, options);
      if (!space.ok()) Violated("a built-in workload has no search space");
      out.push_back(std::move(space).value());
    }
    return out;
  }();
  return spaces;
}

void Dims(const std::string& text) {
  auto dims = crmap::ParseDimsText(text);
  if (!dims.ok()) return;
  auto again = crmap::ParseDimsText(crmap::DimsToText(*dims));
  if (!again.ok() || *again != *dims) Violated("dims do not round-trip through DimsToText");
  for (const crmap::Workload& workload : crmap::fuzz::BuiltinWorkloads()) (void)workload.CheckDims(*dims);
}

void Config(const std::string& text) {
  for (const crmap::SearchSpace& space : Spaces()) {
    auto config = space.Parse(text);
    if (!config.ok()) continue;
    if (!space.Validate(*config).ok()) Violated("a parsed config does not validate");
    auto by_string = space.Parse(space.ToString(*config));
    if (!by_string.ok() || *by_string != *config) Violated("a config does not round-trip through its string");
    auto by_id = space.FromId(space.ToId(*config));
    if (!by_id.ok() || *by_id != *config) Violated("a config does not round-trip through its id");
  }
}

void Shapes(const std::string& text) {
  if (crmap::fuzz::NamesSpecialFile(text)) return;
  for (const crmap::Workload& workload : crmap::fuzz::BuiltinWorkloads()) {
    auto shapes = crmap::ResolveShapes(workload, text, 4, 1);
    if (!shapes.ok()) continue;
    if (shapes->empty()) Violated("ResolveShapes succeeded with no shapes");
    for (const crmap::Dims& dims : *shapes)
      if (!workload.CheckDims(dims).ok()) Violated("a resolved shape is outside the workload's ranges");
  }
}

void Baseline(const std::string& text) {
  auto peers = crmap::ParsePeerLabels(text);
  if (!peers.ok()) return;
  if (peers->empty()) Violated("a parsed --baseline names no peer");
  for (size_t i = 0; i < peers->size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if ((*peers)[i] == (*peers)[j]) Violated("a parsed --baseline lists a peer twice");
    auto again = crmap::ParsePeerLabels((*peers)[i].Label());
    if (!again.ok() || again->size() != 1 || !(again->at(0) == (*peers)[i]))
      Violated("a peer does not round-trip through its label");
  }
}

void Agents(const std::string& text) {
  // replay's agents (agents/agent.h: AgentNames(), which links LibTorch, so the list is written out here).
  static const std::vector<std::string> allowed = {"random", "grid", "evolution", "bandit", "model", "rl"};
  auto names = crmap::SplitAgentList(text, allowed);
  if (!names.ok()) return;
  std::string joined;
  for (size_t i = 0; i < names->size(); ++i) {
    if (std::find(allowed.begin(), allowed.end(), (*names)[i]) == allowed.end()) Violated("an unknown agent passed");
    for (size_t j = 0; j < i; ++j)
      if ((*names)[i] == (*names)[j]) Violated("an agent listed twice passed");
    joined += (i ? "," : "") + (*names)[i];
  }
  if (joined != text) Violated("the agent list does not join back to its text");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = crmap::fuzz::InputText(data, size);
  Dims(text);
  Config(text);
  Shapes(text);
  Baseline(text);
  Agents(text);
  return 0;
}
