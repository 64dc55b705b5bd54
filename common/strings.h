// Small string helpers shared by the parsers (workload shapes, config strings, dims text). Pure; thread-safe.
#pragma once

#include <string>

namespace crmap {

// `text` without leading and trailing spaces, tabs, carriage returns and newlines.
inline std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

}  // namespace crmap
