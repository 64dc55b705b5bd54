#include "tuner/agent_list.h"

#include <algorithm>

#include "common/json_fields.h"

namespace crmap {

Result<std::vector<std::string>> SplitAgentList(const std::string& text, const std::vector<std::string>& allowed) {
  const std::string list = "; give a comma-separated list of " + JoinNames(allowed);
  std::vector<std::string> names;
  for (size_t start = 0; start <= text.size();) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma == start) return Status::InvalidArgument("--agent '" + text + "' has an empty name" + list);
    std::string name = text.substr(start, comma - start);
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      return Status::InvalidArgument("--agent: unknown agent '" + name + "'" + list);
    if (std::find(names.begin(), names.end(), name) != names.end())
      return Status::InvalidArgument("--agent: '" + name + "' is listed twice");
    names.push_back(std::move(name));
    start = comma + 1;
  }
  return names;
}

}  // namespace crmap
