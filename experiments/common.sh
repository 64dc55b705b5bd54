# Shared by the experiments' run.sh scripts (source it): the shapes every experiment measures, the
# command-line options they share, and where the tools are.
declare -A CRMAP_SHAPES=(
  [bert_ffn]="tokens=1 tokens=32 tokens=512"
  [bert_attention]="batch=1,seq=32 batch=1,seq=128 batch=4,seq=256"
  [resnet_bottleneck]="batch=1,size=14 batch=1,size=56 batch=8,size=28"
  [resnet_stem]="batch=1,size=64 batch=1,size=224 batch=4,size=112"
  [dlrm_mlp]="batch=1 batch=64 batch=1024"
  # The held-out set (datasets/heldout; given by path: crmap_workload_arg).
  [qwen2_mlp]="tokens=1 tokens=16 tokens=512"
  [mobilenet_v2_block]="batch=1,size=56 batch=4,size=28 batch=1,size=112"
  [dlrm_bottom_mlp]="batch=1 batch=128 batch=2048"
)
CRMAP_HELD_OUT="qwen2_mlp mobilenet_v2_block dlrm_bottom_mlp"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crmap="${CRMAP:-$root/build/crmap}"  # CRMAP=path runs another build (e.g. a baseline)
python=/usr/bin/python3  # Debian's, with python3-matplotlib (the PATH may hold another python3)

# What to pass as --workload: a built-in's name, or a held-out workload's file (datasets/heldout/workloads/).
crmap_workload_arg() {
  if [[ " $CRMAP_HELD_OUT " == *" $1 "* ]]; then echo "$root/datasets/heldout/workloads/$1.json"; else echo "$1"; fi
}

# What to pass as --shapes for a distribution of workload $1: a built-in distribution's name, or for a held-out
# workload its file (datasets/heldout/distributions/).
crmap_distribution_arg() {
  if [[ " $CRMAP_HELD_OUT " == *" $1 "* ]]; then echo "$root/datasets/heldout/distributions/$2.json"; else echo "$2"; fi
}

# Exits 2 with the build command when crmap is not built.
crmap_require_built() {
  [ -x "$crmap" ] || { echo "build crmap first: scripts/build.sh" >&2; exit 2; }
}

# Parses [--workloads LIST] [--rounds N] [--isa host|avx2] [--out DIR] into $workloads, $rounds, $isa, $out
# (defaults: every workload, 30 rounds, the host as it is, $1 — or $1/<the ISA crmap runs on> when the script set
# results_by_isa=1). `--isa avx2` stands in
# for an AVX2-only host: oneDNN's maximum ISA, LibTorch's CPU capability and OpenBLAS's core type are all capped
# at AVX2 (exported for every crmap run of the script). Writes `crmap version` to $out/version.txt. Exits 2 on
# anything else or when crmap is not built.
crmap_experiment_args() {
  local base="$1"; shift
  workloads="bert_ffn bert_attention resnet_bottleneck resnet_stem dlrm_mlp"
  workloads_given=0  # 1 when --workloads named them (a script's own default list may then differ)
  rounds=30
  isa=host
  out=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --workloads|--rounds|--out|--isa)
        [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
        case "$1" in
          --workloads) workloads="$2"; workloads_given=1 ;;
          --rounds) rounds="$2" ;; --out) out="$2" ;; --isa) isa="$2" ;;
        esac
        shift 2 ;;
      *) echo "usage: $0 [--workloads LIST] [--rounds N] [--isa host|avx2] [--out DIR]" >&2; exit 2 ;;
    esac
  done
  crmap_require_built
  case "$isa" in
    host) ;;
    avx2)
      export ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2
      if grep -q AMD /proc/cpuinfo; then export OPENBLAS_CORETYPE=Zen; else export OPENBLAS_CORETYPE=Haswell; fi ;;
    *) echo "--isa must be host or avx2" >&2; exit 2 ;;
  esac
  for workload in $workloads; do
    [ -n "${CRMAP_SHAPES[$workload]:-}" ] || { echo "no shapes listed for '$workload' in experiments/common.sh" >&2; exit 2; }
  done
  if [ -z "$out" ] && [ "${results_by_isa:-0}" = 1 ]; then
    out="$base/$("$crmap" version | sed -n 's/^host: .*, isa \([a-z0-9_]*\),.*/\1/p')"
  fi
  out="${out:-$base}"
  mkdir -p "$out"
  # Results of another machine are never mixed with this one's (their campaigns would be resumed here). The
  # CPU's own vector extensions tell two hosts apart that print the same ISA under ONEDNN_MAX_CPU_ISA=AVX2.
  local host_now host_then native_now native_then
  host_now=$("$crmap" version | grep '^host:' || true)
  native_now="native: $(grep -m1 -o -w 'avx2\|avx512[a-z_0-9]*\|amx[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  host_then=$(grep '^host:' "$out/version.txt" 2>/dev/null || true)
  native_then=$(grep '^native:' "$out/version.txt" 2>/dev/null || true)
  if [ -n "$host_then" ] && [ -n "$(ls -A "$out" | grep -v '^version.txt$' || true)" ] &&
     { [ "$host_then" != "$host_now" ] || { [ -n "$native_then" ] && [ "$native_then" != "$native_now" ]; }; }; then
    echo "$out holds results of another host ($host_then $native_then; this one: $host_now $native_now): pass --out DIR" >&2
    exit 2
  fi
  "$crmap" version > "$out/version.txt"
  echo "$native_now" >> "$out/version.txt"
  { [ "$isa" = avx2 ] && echo "environment: ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA ATEN_CPU_CAPABILITY=$ATEN_CPU_CAPABILITY OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE"; } >> "$out/version.txt" || true
  echo "results in $out" >&2
}
