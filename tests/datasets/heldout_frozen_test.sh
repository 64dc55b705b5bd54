#!/usr/bin/env bash
# The held-out set is frozen: every workload and distribution file under DIR is listed in DIR/SHA256SUMS, every
# listed file exists, and each hashes to its line. A test fails naming the file.
# usage: heldout_frozen_test.sh DIR
set -euo pipefail
dir=$1
cd "$dir"
[ -f SHA256SUMS ] || { echo "FAIL: $dir/SHA256SUMS is missing" >&2; exit 1; }
listed=$(awk '{print $2}' SHA256SUMS | sort)
present=$(find workloads distributions -type f -name '*.json' | sort)
if [ "$listed" != "$present" ]; then
  echo "FAIL: the files under $dir differ from SHA256SUMS" >&2
  diff <(echo "$listed") <(echo "$present") >&2 || true
  exit 1
fi
if ! sha256sum --quiet -c SHA256SUMS; then
  echo "FAIL: a held-out file changed (see above); a held-out workload is frozen: add a new file under a new name" >&2
  exit 1
fi
echo "ok: $(echo "$present" | wc -l) held-out files unchanged"
