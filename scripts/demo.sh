#!/usr/bin/env bash
# Builds crmap and runs the main job. For now: the knob-effects measurement of the BERT FFN block (every knob
# value against the default config, interleaved, at three shapes), written to experiments/knob_effects/out.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
bash experiments/knob_effects/run.sh --workloads bert_ffn --out experiments/knob_effects/out/demo
