# The harness the CLI test scripts share (sourced, not run). After `cli_test_init NAME path/to/crmap`:
#   $CRMAP   the crmap binary (absolute path), $WORK a fresh folder removed on exit, $python Debian's python3;
#   pass NAME [DETAIL] / fail NAME MESSAGE   record one check (a line "ok   [NAME] ..." or "FAIL [NAME]: ...");
#   check NAME COMMAND...                    the command's success is the check's;
#   run NAME OUTFILE ARGS...                 crmap must exit 0 (stdout to OUTFILE, stderr to OUTFILE.err);
#   expect_bad NAME KEYWORD ARGS...          crmap must exit 2 with exactly one stderr line
#                                            "crmap: error: ..." containing KEYWORD;
#   json_valid FILE                          FILE parses as JSON;
#   json_check FILE PYTHON-CODE              runs the code with `d` bound to FILE's parsed JSON;
#   cli_test_finish                          prints "N of M checks passed" and exits 1 if any failed.

# cli_test_init NAME CRMAP
cli_test_init() {
  local name=$1
  if [[ $# -lt 2 || ! -x "$2" ]]; then
    echo "FAIL: '${2:-}' is not an executable (usage: $0 path/to/crmap ...)" >&2
    exit 1
  fi
  CRMAP=$(realpath "$2")
  python=/usr/bin/python3
  if [[ ! -x $python ]]; then
    echo "FAIL: $python is needed to check JSON output" >&2
    exit 1
  fi
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/crmap_${name}.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  failures=0
  checks=0
}

pass() {
  checks=$((checks + 1))
  echo "ok   [$1]${2:+ $2}"
}

fail() {
  checks=$((checks + 1))
  failures=$((failures + 1))
  echo "FAIL [$1]: $2"
}

check() {
  local name=$1
  shift
  local message
  if message=$("$@" 2>&1); then
    pass "$name" "$message"
  else
    fail "$name" "${message:-command failed}"
  fi
}

run() {
  local name=$1 out=$2
  shift 2
  if "$CRMAP" "$@" >"$out" 2>"$out.err"; then
    pass "$name" "exit 0"
  else
    fail "$name" "exit $? (crmap $*); stderr: $(head -c 500 "$out.err")"
  fi
}

expect_bad() {
  local name=$1 keyword=$2
  shift 2
  local out="$WORK/bad.out" err="$WORK/bad.err" status lines
  "$CRMAP" "$@" >"$out" 2>"$err"
  status=$?
  lines=$(wc -l <"$err")
  if [[ $status -ne 2 ]]; then
    fail "$name" "exit status $status, expected 2 (crmap $*); stderr: $(head -c 300 "$err")"
  elif [[ $lines -ne 1 ]]; then
    fail "$name" "stderr has $lines lines, expected exactly 1 (crmap $*): $(head -c 600 "$err")"
  elif ! grep -q "^crmap: error:" "$err"; then
    fail "$name" "stderr lacks 'crmap: error:': $(cat "$err")"
  elif ! grep -qF -- "$keyword" "$err"; then
    fail "$name" "stderr does not mention '$keyword': $(cat "$err")"
  else
    pass "$name" "$(cat "$err")"
  fi
}

json_valid() {
  "$python" -c 'import json,sys; json.load(sys.stdin)' <"$1"
}

json_check() {
  "$python" - "$1" "$2" <<'PY'
import json, sys
path, code = sys.argv[1], sys.argv[2]
try:
    with open(path) as f:
        d = json.load(f)
except Exception as e:
    print(f"{path}: not valid JSON: {e}")
    sys.exit(1)
try:
    exec(code, {"d": d})
except AssertionError as e:
    print(f"assertion failed: {e}")
    sys.exit(1)
PY
}

cli_test_finish() {
  echo "$((checks - failures)) of $checks checks passed"
  if [[ $failures -ne 0 ]]; then
    echo "FAILED: $failures check(s)"
    exit 1
  fi
  exit 0
}
