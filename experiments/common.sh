# Shared by the experiments' run.sh scripts (source it): the shapes every experiment measures, the
# command-line options they share, and where the tools are.
declare -A CRMAP_SHAPES=(
  [bert_ffn]="tokens=1 tokens=32 tokens=512"
  [bert_attention]="batch=1,seq=32 batch=1,seq=128 batch=4,seq=256"
  [resnet_bottleneck]="batch=1,size=14 batch=1,size=56 batch=8,size=28"
  [resnet_stem]="batch=1,size=64 batch=1,size=224 batch=4,size=112"
  [dlrm_mlp]="batch=1 batch=64 batch=1024"
)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crmap="$root/build/crmap"
python=/usr/bin/python3  # Debian's, with python3-matplotlib (the PATH may hold another python3)

# Parses [--workloads LIST] [--rounds N] [--out DIR] into $workloads, $rounds, $out (defaults: every workload,
# 30 rounds, $1). Exits 2 on anything else or when crmap is not built.
crmap_experiment_args() {
  out="$1"; shift
  workloads="bert_ffn bert_attention resnet_bottleneck resnet_stem dlrm_mlp"
  rounds=30
  while [ $# -gt 0 ]; do
    case "$1" in
      --workloads|--rounds|--out)
        [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
        case "$1" in --workloads) workloads="$2" ;; --rounds) rounds="$2" ;; --out) out="$2" ;; esac
        shift 2 ;;
      *) echo "usage: $0 [--workloads LIST] [--rounds N] [--out DIR]" >&2; exit 2 ;;
    esac
  done
  [ -x "$crmap" ] || { echo "build crmap first: scripts/build.sh" >&2; exit 2; }
  for workload in $workloads; do
    [ -n "${CRMAP_SHAPES[$workload]:-}" ] || { echo "no shapes listed for '$workload' in experiments/common.sh" >&2; exit 2; }
  done
  mkdir -p "$out"
}
