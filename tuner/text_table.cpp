#include "tuner/text_table.h"

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>

namespace crmap {

TextTable::TextTable(std::vector<std::string> headers) {
  for (auto& header : headers) {
    bool right = !header.empty() && header[0] == '>';
    right_.push_back(right);
    headers_.push_back(right ? header.substr(1) : header);
  }
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render() const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    width[c] = headers_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string pad(width[c] - cells[c].size(), ' ');
      std::string cell = right_[c] ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : "");
      out += (c ? "  " : "") + cell;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_);
  std::vector<std::string> rule;
  for (size_t c = 0; c < headers_.size(); ++c) rule.push_back(std::string(width[c], '-'));
  out += line(rule);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string Format(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char buffer[512];
  int n = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  if (n < 0) return "";
  if (static_cast<size_t>(n) < sizeof buffer) return buffer;
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(big.data(), big.size(), format, args);
  va_end(args);
  big.resize(static_cast<size_t>(n));
  return big;
}

std::string HumanBytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? Format("%lld B", static_cast<long long>(bytes)) : Format("%.1f %s", value, units[unit]);
}

}  // namespace crmap
