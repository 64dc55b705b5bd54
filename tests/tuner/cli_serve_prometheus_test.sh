#!/usr/bin/env bash
# A real Prometheus server (Debian's `prometheus`) scrapes a running `crmap serve` on loopback, and the request
# latency's p99 is read back through Prometheus's HTTP API. Exit 77 (ctest: skipped) when `prometheus` is not
# installed; scripts/install_deps.sh installs it. ctest label: prometheus (`ctest -LE prometheus` leaves it out).
# Usage: cli_serve_prometheus_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_serve_prometheus "${1:-}"
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
TINY="$SOURCE_DIR/tests/data/tiny_mlp.json"
if ! command -v prometheus >/dev/null; then
  echo "SKIP: prometheus is not installed (apt-get install prometheus, or scripts/install_deps.sh)"
  exit 77
fi

# Two minutes of requests, one every 2 ms; the run is stopped once Prometheus has answered.
"$python" - "$WORK" <<'PY'
import json, sys
with open(f"{sys.argv[1]}/stream.jsonl", "w") as f:
    for i in range(60000):
        f.write(json.dumps({"t_us": i * 2000.0, "dims": {"batch": 1 + i % 8}, "stream": 0, "phase": 0}) + "\n")
PY
"$CRMAP" serve -w "$TINY" --requests "$WORK/stream.jsonl" --mode triton --metrics-port 0 \
  --summary "$WORK/summary.json" >"$WORK/serve.out" 2>"$WORK/serve.err" &
serve_pid=$!
prometheus_pid=
cleanup() {
  [[ -n $prometheus_pid ]] && kill "$prometheus_pid" 2>/dev/null && wait "$prometheus_pid" 2>/dev/null
  kill -KILL "$serve_pid" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

port=
for _ in $(seq 600); do
  port=$(grep -o 'metrics on http://127.0.0.1:[0-9]*' "$WORK/serve.err" | grep -o '[0-9]*$')
  [[ -n $port ]] && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.1
done
[[ -n $port ]] && pass "serve announces its metrics port" "$port" || fail "serve announces its metrics port" \
  "$(tail -c 300 "$WORK/serve.err")"

prometheus_port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: crmap
    static_configs:
      - targets: ["127.0.0.1:$port"]
YAML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$prometheus_port" >"$WORK/prometheus.log" 2>&1 &
prometheus_pid=$!

# Read the p99 back through the query API (at most a minute: Prometheus starts, scrapes every second).
answer=
for _ in $(seq 60); do
  sleep 1
  answer=$("$python" - "$prometheus_port" <<'PY'
import json, sys, urllib.parse, urllib.request
query = 'crmap_request_duration_us{quantile="0.99",mode="triton",workload="tiny_mlp"}'
url = f"http://127.0.0.1:{sys.argv[1]}/api/v1/query?" + urllib.parse.urlencode({"query": query})
try:
    reply = json.load(urllib.request.urlopen(url, timeout=5))
except Exception:
    sys.exit(1)
result = reply.get("data", {}).get("result", [])
if reply.get("status") != "success" or not result or float(result[0]["value"][1]) <= 0:
    sys.exit(1)
print(f'p99 {float(result[0]["value"][1]):.0f} us, job {result[0]["metric"]["job"]}')
PY
) && break
  answer=
done
[[ -n $answer ]] && pass "Prometheus scraped serve and answers the p99" "$answer" \
  || fail "Prometheus scraped serve and answers the p99" "no answer in a minute: $(tail -c 400 "$WORK/prometheus.log")"

kill -TERM "$serve_pid"
wait "$serve_pid"
status=$?
[[ $status -eq 130 ]] && pass "serve stops on SIGTERM" || fail "serve stops on SIGTERM" "exit $status"
check "the summary is written" json_check "$WORK/summary.json" 'assert d["completed"] > 0'
cli_test_finish
