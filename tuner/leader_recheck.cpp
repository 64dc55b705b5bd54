#include "tuner/leader_recheck.h"

#include <cmath>
#include <tuple>

namespace crmap {

namespace {

// A config a recheck may measure again: a known speedup, and no failed record at the shape (a config that timed
// out once is no leader to spend the budget on; it could hang again).
bool Recheckable(const ConfigScore& score) {
  return score.ran() && score.failed == 0 && std::isfinite(score.speedup) && score.speedup > 0;
}

// The shape's recheck, or nullopt when it has fewer than two configs with a known speedup.
std::optional<LeaderRecheck> RecheckAt(const ShapeScores& shape) {
  const ConfigScore* first = nullptr;
  const ConfigScore* second = nullptr;
  for (const auto& [name, score] : shape.configs) {
    if (!Recheckable(score)) continue;
    if (!first || BetterScore(score, *first)) {
      second = first;
      first = &score;
    } else if (!second || BetterScore(score, *second)) {
      second = &score;
    }
  }
  if (!second) return std::nullopt;
  LeaderRecheck recheck;
  recheck.dims = shape.dims;
  double variance_in_records = 0;  // 1/n1 + 1/n2, the default's term 0
  bool counted = false;
  for (const ConfigScore* leader : {first, second}) {
    if (leader->is_default) continue;
    recheck.configs.push_back(leader->config);
    variance_in_records += 1.0 / static_cast<double>(leader->ok);
    if (!counted || leader->ok < recheck.fewest_records) recheck.fewest_records = leader->ok;
    counted = true;
  }
  recheck.separation = std::fabs(std::log(first->speedup) - std::log(second->speedup)) / std::sqrt(variance_in_records);
  return recheck;
}

size_t RecordsOf(const ShapeScores& shape, const LeaderRecheck& recheck) {
  size_t records = 0;
  for (const auto& config : recheck.configs) records += shape.Find(config)->ok;
  return records;
}

}  // namespace

std::optional<LeaderRecheck> NextLeaderRecheck(const std::map<Dims, ShapeScores>& scores,
                                               const std::vector<Dims>& shapes, size_t measurements) {
  std::optional<LeaderRecheck> chosen;
  size_t chosen_records = 0;
  for (const Dims& dims : shapes) {
    auto it = scores.find(dims);
    if (it == scores.end()) continue;
    std::optional<LeaderRecheck> recheck = RecheckAt(it->second);
    if (!recheck || recheck->configs.size() > measurements) continue;
    const size_t records = RecordsOf(it->second, *recheck);
    if (chosen && std::make_tuple(recheck->fewest_records, recheck->separation, records, recheck->dims) >=
                      std::make_tuple(chosen->fewest_records, chosen->separation, chosen_records, chosen->dims))
      continue;
    chosen = std::move(recheck);
    chosen_records = records;
  }
  return chosen;
}

size_t ShareOfBudget(size_t budget, double share) {
  if (budget == 0 || !(share > 0)) return 0;
  const size_t kept = static_cast<size_t>(std::floor(share * static_cast<double>(budget)));
  return kept >= budget ? budget - 1 : kept;
}

}  // namespace crmap
