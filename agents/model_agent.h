// ModelAgent ("model"): proposes the unmeasured configs a learned cost model predicts best.
//
// The model is a CostModel (LibTorch MLP on FeatureSpec features) predicting the reward
// log(default latency / latency) of (dims, config), i.e. log latency normalised per shape; failures count as
// kFailureReward. For each proposal it scores a pool of unmeasured configs for the least-measured shape
// (random draws plus the neighbours of that shape's best so far) and takes the top one; a share of proposals
// stays random (exploration). The first proposals (warm-up) come from a balanced design (every knob value equally
// often), so the first model sees every knob value. The model retrains after each batch.
// Deterministic for a seed. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>

#include "agents/agent.h"
#include "agents/cost_model.h"
#include "search_space/features.h"

namespace crmap {

struct ModelAgentOptions {
  int warmup = 8;          // proposals from a balanced design before the model is trusted
  double explore = 0.15;   // share of random proposals after warm-up
  int pool = 128;          // random candidates scored per proposal (plus the best's neighbours)
  int epochs = 80;         // Adam steps after each batch
};

class ModelAgent : public Agent {
 public:
  ModelAgent(const AgentContext& context, ModelAgentOptions options = {});
  std::string name() const override { return "model"; }
  std::vector<Candidate> Propose(size_t n) override;
  void Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) override;
  double PredictReward(const Dims& dims, const Config& config) const;

 private:
  AgentContext context_;
  ModelAgentOptions options_;
  FeatureSpec features_;
  CostModel model_;
  SearchHistory history_;
  std::mt19937_64 rng_;
  ShapeRotation shapes_;  // which shape the next proposal is for
  WarmupDesign warmup_;  // the first proposals
};

std::unique_ptr<Agent> MakeModelAgent(const AgentContext& context);

}  // namespace crmap
