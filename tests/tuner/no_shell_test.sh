#!/usr/bin/env bash
# No user string reaches a shell: crmap's sources (everything but tests/ and experiments/) call no shell —
# no system(), popen() or exec of /bin/sh — and the one child process (the LibTorch peer, backend/peer_process)
# is started with posix_spawn and an argv array. Usage: no_shell_test.sh SOURCE_DIR
set -u
cd "${1:?usage: $0 SOURCE_DIR}" || exit 1
hits=$(grep -rnE '\b(system|popen|execl|execlp|execle|execvp)\s*\(|"/bin/sh"|"sh", *"-c"' \
  --include='*.cpp' --include='*.h' --include='*.c' --include='*.hpp' \
  common search_space datasets backend agents tuner runtime || true)
if [[ -n "$hits" ]]; then
  echo "FAIL: a shell (or an exec that searches PATH) is called from crmap's sources:"
  echo "$hits"
  exit 1
fi
if ! grep -q 'posix_spawn(' backend/peer_process.cpp; then
  echo "FAIL: backend/peer_process.cpp no longer starts its child with posix_spawn and an argv array"
  exit 1
fi
echo "ok: no shell in crmap's sources; the peer child starts with posix_spawn"
