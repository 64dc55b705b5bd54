// Leader recheck: how a campaign spends the share of its budget kept back for measuring its leaders again
// (`crmap tune --recheck-share`). A tuned shape's label is its best measured config, and one record cannot
// resolve a few percent (issue 12 measured a record's log-speedup noise at 0.03-0.07 on 2-core hosts): a label
// a lucky sample decided is a wrong label the policy then generalises to the shapes around it. A recheck measures
// a shape's two leading configs again — as every campaign measurement is measured, side by side with the default —
// so each has one record more, their speedups (the median over their records, tuner/config_scores.h) are less
// noisy and the tie band between them narrows.
//
// Which shape: the leaders known from the fewest records first (a config of one record among the leaders is
// unconfirmed, including a new leader a recheck just promoted), then the least separated — the gap between their
// log speedups over its standard error in records, |ln s1 - ln s2| / sqrt(1/n1 + 1/n2) (n: ok records; the
// default's speedup is exact, so its term is 0 and it is never a config to recheck — it runs beside every
// measurement as the anchor anyway) — then the fewest records in all,
// then dims order. Two truly tied configs stay unseparated however often they are measured, so the record count
// comes first: no shape takes every recheck. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuner/config_scores.h"

namespace crmap {

// One recheck: the configs to measure again at one shape, and why that shape (its place in the order above).
struct LeaderRecheck {
  Dims dims;
  std::vector<std::string> configs;  // to measure again: the two leaders without the default (one or two)
  size_t fewest_records = 0;         // the smallest ok-record count among `configs`
  double separation = 0;             // |ln s1 - ln s2| / sqrt(1/n1 + 1/n2), the default's term 0
};

// The next recheck among `shapes` (shapes without scores are skipped) that measures at most `measurements`
// configs, by the order above; nullopt when no shape has two leaders that fit. A shape's leaders are its two
// best configs (BetterScore) with a known speedup and no failed record there (a config that timed out once could
// hang again).
std::optional<LeaderRecheck> NextLeaderRecheck(const std::map<Dims, ShapeScores>& scores,
                                               const std::vector<Dims>& shapes, size_t measurements);

// The measurements of `budget` a share in [0, 1) keeps back from the agent (for rechecks, or for range probes:
// tuner/range_probe.h): floor(share x budget) (at most budget - 1, should rounding ever reach the whole budget: the
// agent measures first); 0 for a NaN share.
size_t ShareOfBudget(size_t budget, double share);

}  // namespace crmap
