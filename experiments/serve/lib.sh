# Shared by the experiments/serve scripts (sourced, not run): this host's bert_ffn tuning files, the set-ups they
# compare, the default mode's capacity on the Azure code trace and Poisson request streams of the trace's token
# sizes. Needs $crmap, $root and $csv set by the caller.

# ffn_tuning_files SCRIPT: sets isa, db and policy to this ISA's bert_ffn tuning files (experiments/serve/tune_ffn.sh
# writes them); exits 2 naming SCRIPT when one is missing.
ffn_tuning_files() {
  isa=$("$crmap" version | sed -n 's/.*isa \([a-z0-9_]*\).*/\1/p')
  db="$root/experiments/serve/results/bert_ffn.$isa.jsonl"
  policy="$root/experiments/serve/results/bert_ffn.$isa.policy"
  for f in "$db" "$policy"; do
    [ -s "$f" ] || { echo "$1: $f missing: run experiments/serve/tune_ffn.sh on this host first" >&2; exit 2; }
  done
}

# Triton's usual dynamic batcher (max batch 16, 100 us delay): the tuning database's runtime knobs are the defaults
# (batch 1, no delay: a kernel campaign does not tune them), so static, policy and oracle also run with this
# batcher (+b): the kernels they choose, batched as triton batches.
batcher="--max-batch 16 --queue-delay-us 100"

# Warm every plan bucket the scenario's distributions draw before the first arrival (docs/serve.md, --warmup-shapes
# support), with room in the plan cache for them: a scenario source only.
warm_support="--warmup-shapes support --plan-memory-mb 8192 --max-plans 1024"

# serve_setups DB POLICY: sets the global associative array `setup` (set-up name -> `crmap serve` flags) to the
# set-ups the experiments compare, reading kernels from the tuning database DB and the policy file POLICY.
serve_setups() {
  declare -gA setup=(
    [default]="--mode default"
    [triton]="--mode triton"
    [static+b]="--mode static --db $1 $batcher"
    [policy]="--mode policy --policy $2"
    [policy+b]="--mode policy --policy $2 $batcher"
    [policy+b+w]="--mode policy --policy $2 $batcher $warm_support"
    [oracle+b]="--mode oracle --db $1 $batcher"
    [libtorch]="--mode triton --executor libtorch"
  )
}

# rotated_rounds ROUNDS RUN NAME...: calls `RUN NAME ROUND` for every set-up NAME in every round 0..ROUNDS-1, the
# order rotated by one each round (so no set-up always runs first, or right after the same one); a progress line
# per run on stderr. Stops at the first RUN that fails, with its status.
rotated_rounds() {
  local rounds=$1 run=$2 r i
  shift 2
  local names=("$@")
  for ((r = 0; r < rounds; ++r)); do
    for ((i = 0; i < ${#names[@]}; ++i)); do
      local name=${names[$(((i + r) % ${#names[@]}))]}
      "$run" "$name" "$r" || return
      echo "round $r: $name done" >&2
    done
  done
}

# default_capacity OUT_JSON: bert_ffn served in the default mode (--thread-wait spin) with the whole trace
# arriving at once (time scale 1e-9); its summary goes to OUT_JSON and its throughput (req/s) to stdout.
default_capacity() {
  "$crmap" serve -w bert_ffn --thread-wait spin --json --requests "$csv" --map tokens=GeneratedTokens \
    --out-of-range clamp --time-scale 1e-9 --mode default >"$1" 2>/dev/null
  python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['throughput_rps'])" "$1"
}

# poisson_stream OUT RATE DURATION_S FIRST_ROW SEED: a crmap.trace JSONL stream of the trace's GeneratedTokens
# (clamped to 1..4096) in row order from FIRST_ROW, wrapping around to the first row as often as the duration
# needs, with Poisson arrivals at RATE req/s (random.Random(SEED)) for DURATION_S seconds; one stream, phase 0.
# (modes.sh and tune_runtime.sh used to stop after one pass over the 8,819 rows: their streams are unchanged
# whenever RATE x DURATION_S stays below that, as in every run recorded in experiments/RESULTS.md.)
poisson_stream() {
  python3 - "$csv" "$@" <<'PY'
import csv, json, random, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out, rate, end = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]) * 1e6
first, seed = int(sys.argv[5]), int(sys.argv[6])
rng, t, i = random.Random(seed), 0.0, first
with open(out, "w") as f:
    while True:
        t += rng.expovariate(rate) * 1e6
        if t > end: break
        tokens = min(max(int(rows[i % len(rows)]["GeneratedTokens"]), 1), 4096)
        i += 1
        f.write(json.dumps({"t_us": round(t, 1), "dims": {"tokens": tokens}, "stream": 0, "phase": 0}) + "\n")
PY
}
