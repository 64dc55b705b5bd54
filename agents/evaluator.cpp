#include "agents/evaluator.h"

namespace crmap {

namespace {
constexpr std::pair<EvalStatus, const char*> kStatusNames[] = {
    {EvalStatus::kOk, "ok"},           {EvalStatus::kUnsupported, "unsupported"},
    {EvalStatus::kWrongAnswer, "wrong_answer"}, {EvalStatus::kOverMemory, "over_memory"},
    {EvalStatus::kTimeout, "timeout"}, {EvalStatus::kError, "error"},
};
}  // namespace

const char* EvalStatusName(EvalStatus status) {
  for (const auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "error";
}

EvalStatus EvalStatusFromName(const std::string& name) {
  for (const auto& [value, text] : kStatusNames)
    if (name == text) return value;
  return EvalStatus::kError;
}

std::string CandidateKey(const SearchSpace& space, const Candidate& candidate) {
  return DimsToText(candidate.dims) + "|" + space.ToString(candidate.config);
}

}  // namespace crmap
