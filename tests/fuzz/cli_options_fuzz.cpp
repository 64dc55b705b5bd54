// libFuzzer target for the parsers that turn the CLI's option text into values: the same text is given to
//   --dims        ParseDimsText ("tokens=128,batch=4"; common/workload.h), then every built-in workload's
//                 CheckDims; parsed dims must round-trip through DimsToText;
//   --config, -c  SearchSpace::Parse ("default", "knob=value;...", or a JSON object; search_space.h) on every
//                 built-in workload's space (a fixed 4-thread host); a parsed config must round-trip through
//                 its canonical string and its id, and pass Validate;
//   --shapes      ResolveShapes (tuner/campaign_spec.h) on every built-in workload: a list "tokens=1;tokens=64"
//                 checked against the ranges, or a built-in distribution's name (4 shapes drawn).
// Not covered: --baseline (ParsePeers sits in backend/peer.cpp with the host, BLAS and LibTorch detection) and
// replay's --agent list (in tuner/replay_runner.cpp, next to the agents); cxxopts parses the numeric options.
// Inputs naming /dev, /proc or /sys paths are skipped for --shapes (fuzz_support.h: NamesSpecialFile).
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/cli_options/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "search_space/search_space.h"
#include "tests/fuzz/fuzz_support.h"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = crmap::fuzz::InputText(data, size);
  Dims(text);
  Config(text);
  Shapes(text);
  return 0;
}
