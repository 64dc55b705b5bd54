// TextTable: aligned plain-text tables for the CLI's human-readable output.
// Columns are left-aligned unless marked numeric (right-aligned). Not thread-safe; build, then Render().
#pragma once

#include <string>
#include <vector>

namespace crmap {

class TextTable {
 public:
  // A header starting with '>' is a right-aligned (numeric) column; the '>' is not printed.
  explicit TextTable(std::vector<std::string> headers);
  void AddRow(std::vector<std::string> cells);  // missing cells are blank, extra cells are dropped
  std::string Render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// printf-style formatting into a std::string.
std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
// 1536 -> "1.5 KiB"
std::string HumanBytes(int64_t bytes);

}  // namespace crmap
