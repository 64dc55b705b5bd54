// The --agent list of `crmap replay`: "random,grid,rl". A pure text function, apart from the agents (which link
// LibTorch), so that it can be fuzzed on its own (tests/fuzz/cli_options_fuzz.cpp). Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace crmap {

// The names of the comma-separated list `text`, in order. InvalidArgument for an empty name (",", "a,,b", a
// trailing comma), a name not in `allowed` or a name listed twice; the message lists what is allowed.
Result<std::vector<std::string>> SplitAgentList(const std::string& text, const std::vector<std::string>& allowed);

}  // namespace crmap
