#!/usr/bin/env bash
# The runtime hook stays light: libcrmap_hook.so must not need LibTorch (libtorch*, libc10*), oneDNN (libdnnl)
# or any other crmap library, must export every function of the C API (other exports are reported as a
# warning), and no source under runtime/ may include LibTorch, ATen, oneDNN or nlohmann headers (the README's
# dependency rule; CMakeLists.txt checks the same rule on the targets' link libraries at configure time).
#
#   hook_dependencies_test.sh path/to/libcrmap_hook.so
set -euo pipefail

library=${1:?usage: hook_dependencies_test.sh path/to/libcrmap_hook.so}
root=$(cd "$(dirname "$0")/../../.." && pwd)
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

[ -f "$library" ] || { echo "FAIL: no such library: $library" >&2; exit 1; }

forbidden='libtorch|libc10|libdnnl|libmkldnn|libcrmap'
self=$(basename "$library")

# Direct dependencies (DT_NEEDED) ...
needed=$(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p')
[ -n "$needed" ] || fail "readelf -d shows no NEEDED entries for $library (not a shared library?)"
while read -r lib; do
  [ -z "$lib" ] && continue
  if [[ "$lib" =~ $forbidden ]] && [ "$lib" != "$self" ]; then fail "$self needs $lib"; fi
done <<< "$needed"

# ... and everything the loader would pull in.
resolved=$(ldd "$library" | awk '{print $1}')
while read -r lib; do
  [ -z "$lib" ] && continue
  if [[ "$lib" =~ $forbidden ]] && [ "$(basename "$lib")" != "$self" ]; then fail "ldd: $self pulls in $lib"; fi
done <<< "$resolved"

# Exported symbols: every function of the C API must be there, and nothing else (the statically linked codec and
# evaluator stay hidden).
exported=$(nm -D --defined-only "$library" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}')
for api in crmap_status_name crmap_hook_last_error crmap_hook_open crmap_hook_dim_count crmap_hook_dim_name \
  crmap_hook_decide crmap_hook_observe crmap_hook_metrics crmap_hook_reload crmap_hook_close; do
  grep -qx "$api" <<< "$exported" || fail "$self does not export $api"
done
others=$(grep -cv '^crmap_\|^_init$\|^_fini$' <<< "$exported" || true)
[ "$others" -eq 0 ] || fail "$self also exports $others non-API symbols (C++ internals), e.g. \
$(grep -v '^crmap_\|^_init$\|^_fini$' <<< "$exported" | head -3 | tr '\n' ' ')"

# Sources: no LibTorch, ATen, oneDNN or nlohmann includes anywhere under runtime/.
includes=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](torch/|ATen/|oneapi/dnnl|dnnl\.hpp|dnnl\.h|nlohmann)' \
  "$root/runtime" || true)
[ -z "$includes" ] || fail "forbidden includes under runtime/:"$'\n'"$includes"
# The library and the example use no crmap header outside runtime/hook/ but common/status.h, common/atomic_file.h,
# common/file_read.h, common/hash.h, common/two_nearest.h and search_space/feature_math.h (which include none of
# those). The decide benchmark, which runs LibTorch next to the hook, lives on the offline side (tuner/bench/).
allowed='^(runtime/hook/|common/status\.h$|common/atomic_file\.h$|common/file_read\.h$|common/hash\.h$'
allowed+='|common/two_nearest\.h$|search_space/feature_math\.h$)'
crmap_includes=$(find "$root/runtime/hook" -type f -print |
  xargs grep -hoE '#[[:space:]]*include[[:space:]]*"[^"]+"' | sed 's/.*"\(.*\)"/\1/' |
  sort -u | grep -vE "$allowed" || true)
[ -z "$crmap_includes" ] || fail "runtime/hook/ includes crmap headers outside the hook's allowed set: $crmap_includes"

if [ "$failures" -ne 0 ]; then
  echo "hook_dependencies_test: $failures failure(s)" >&2
  exit 1
fi
echo "hook_dependencies_test: ok ($self needs: $(echo $needed))"
