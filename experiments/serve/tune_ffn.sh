#!/usr/bin/env bash
# Tunes bert_ffn on this host for the serving experiments (modes.sh): an rl campaign over the batch sizes the
# mapped Azure code trace produces once batched (tokens 1 .. 512, powers of two and between), then `crmap train`.
# Writes experiments/serve/results/bert_ffn.<isa>.jsonl (the tuning database: oracle and static modes read it)
# and bert_ffn.<isa>.policy (policy mode). A policy is only valid on the ISA it was tuned on, hence the name.
# Kernels are ranked at the median (`crmap train` has no --objective yet). Resumes a database already there.
# Usage: experiments/serve/tune_ffn.sh [BUDGET]   (default 160 measurements)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
budget=${1:-160}
isa=$("$crmap" version | sed -n 's/.*isa \([a-z0-9_]*\).*/\1/p')
results="$root/experiments/serve/results"
mkdir -p "$results"
db="$results/bert_ffn.$isa.jsonl"
"$crmap" version
"$crmap" tune -w bert_ffn --shapes "tokens=1;tokens=2;tokens=4;tokens=8;tokens=16;tokens=24;tokens=32;tokens=48;tokens=64;tokens=96;tokens=128;tokens=256;tokens=512" \
  --agent rl --budget "$budget" --campaign serve-ffn --no-confirm --db "$db" \
  $( [ -s "$db" ] && echo --resume )
"$crmap" train --db "$db" -o "$results/bert_ffn.$isa.policy"
