#!/usr/bin/env bash
# Checks that a brand-new Debian 12 machine can run the README's quick start with nothing but the repository's
# own scripts: builds a minimal Debian 12 root with debootstrap (--variant=minbase bookworm), clones this
# repository's committed HEAD into it (/root/crmap), runs the README's two commands there as root in a clean
# environment -- `scripts/demo.sh`, then `scripts/test.sh` -- and nothing else, then prints each command's wall
# time and the ctest summary. scripts/install_deps.sh (called by both) must install everything the build and
# the tests need into the fresh root by itself.
#
# usage: scripts/check_fresh.sh [--rebuild-cache] [--keep] [--verbose]
#   --rebuild-cache  debootstrap the root again (and empty the .deb cache) even if a cached one exists
#   --keep           keep the temporary root afterwards (its path is printed); everything is still unmounted
#   --verbose        also stream demo.sh's and test.sh's output to the terminal (it always goes to the logs)
# Run it as root (it debootstraps, mounts and chroots); it installs debootstrap on the host if missing.
#
# How it works:
# - The mirror comes from the host's apt sources (deb822 /etc/apt/sources.list.d/*.sources, then the one-line
#   /etc/apt/sources.list and sources.list.d/*.list): the first enabled `deb` source of the suite bookworm,
#   else http://deb.debian.org/debian; the security mirror likewise from the bookworm-security source. The
#   fresh root's apt sources are bookworm, bookworm-updates (main mirror) and bookworm-security, as on the host.
# - The pristine minbase root is debootstrapped once and cached as a tarball in $CRMAP_FRESH_CACHE, keyed by
#   suite, variant, architecture and mirror. Every run unpacks a brand-new copy into a temporary directory, so
#   no run sees another run's installs.
# - The downloaded .deb files are cached between runs ($CRMAP_FRESH_CACHE/apt-archives-<key>, bind-mounted on
#   the fresh root's /var/cache/apt/archives). That saves the download only: apt still resolves every package from
#   freshly updated indices and checks each .deb's hash, so what gets installed is the same as without it.
#   Runs that use it are serialised by a lock. CRMAP_FRESH_APT_CACHE=0 turns it off.
# - The clone is `git clone --no-local` of the repository this script lives in, checked out at its HEAD commit
#   (printed). Uncommitted and untracked changes are NOT tested (a warning says so when the tree is dirty).
# - The only additions to the unpacked root: /etc/resolv.conf (copied from the host, for apt), the apt sources
#   above, /usr/sbin/policy-rc.d (so no package starts a daemon), and the clone. Inside, the commands run as
#   root via chroot with `env -i HOME=/root PATH=... LANG=C.UTF-8 TERM=...`: no host variable (CRMAP_* or
#   other) reaches them.
# - The mounts (/proc, read-only /sys, a tmpfs /dev with the basic nodes, its own /dev/pts and /dev/shm, a
#   tmpfs /tmp, the .deb cache) are made in a private mount namespace (unshare -m) that exists only while the
#   run does: the host never sees them, they cannot outlive the run even on SIGKILL, and they are unmounted
#   explicitly on exit all the same. Cleanup kills what still runs in the root, checks with findmnt that
#   nothing is mounted under it and only then deletes it (rm --one-file-system); it refuses otherwise.
# - Logs (kept, outside the root): debootstrap.log (on a cache miss), clone.log, demo.log, test.log, the fresh
#   root's apt history and term logs (what install_deps.sh installed, and when), summary.txt (ctest summary).
#
# Environment knobs:
#   CRMAP_FRESH_MIRROR           Debian mirror for debootstrap and apt (default: from the host's apt sources)
#   CRMAP_FRESH_SECURITY_MIRROR  security mirror (default: from the host's apt sources, else
#                                http://deb.debian.org/debian-security)
#   CRMAP_FRESH_CACHE            cache directory (default /var/cache/crmap-fresh)
#   CRMAP_FRESH_WORKDIR          where the temporary root is made (default /var/tmp; needs ~5 GB free)
#   CRMAP_FRESH_LOGDIR           log directory (default /var/tmp/crmap-fresh-logs/<date>-<commit>)
#   CRMAP_FRESH_KEEP=1           as --keep
#   CRMAP_FRESH_REBUILD=1        as --rebuild-cache
#   CRMAP_FRESH_VERBOSE=1        as --verbose
#   CRMAP_FRESH_APT_CACHE=0      do not cache .deb files between runs
#
# Exit status: 0 both commands succeeded; 1 demo.sh or test.sh failed (named in the output, logs kept);
# 2 bad usage; 3 the check itself could not be set up or cleaned up (not root, debootstrap, clone, mounts, a
# root it refused to delete); 130/143 interrupted (SIGINT/SIGTERM), after cleaning up.
# shellcheck disable=SC2317  # the cleanup functions are called from traps
# shellcheck disable=SC2016  # bash -c '... "$0"' is expanded by the inner shell, on purpose
set -euo pipefail

suite=bookworm
variant=minbase
chroot_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

msg() { echo "check_fresh: $*"; }
warn() { echo "check_fresh: warning: $*" >&2; }
die() { echo "check_fresh: error: $*" >&2; exit 3; }

usage() { sed -n '/^# usage:/,/^# Run it/p' "$0" | sed 's/^# \{0,1\}//'; }

now() { date +%s.%N; }
# duration START END -> "7m05s"
duration() {
  local secs
  secs=$(awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", b - a + 0.5 }')
  printf '%dm%02ds' $((secs / 60)) $((secs % 60))
}

# PIDs of the processes whose root directory is $1 or lies under it (i.e. that run inside the chroot).
procs_in_root() {
  local root=$1 p link
  for p in /proc/[0-9]*; do
    link=$(readlink "$p/root" 2>/dev/null) || continue
    case "$link" in "$root" | "$root"/*) echo "${p#/proc/}" ;; esac
  done
}

# Sends TERM, then KILL, to every process still running inside root $1.
kill_procs_in_root() {
  local root=$1 pids i
  pids=$(procs_in_root "$root")
  [ -z "$pids" ] && return 0
  warn "stopping processes still running in $root: ${pids//$'\n'/ }"
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  for i in 1 2 3 4 5 6 7 8 9 10; do
    sleep 0.5
    pids=$(procs_in_root "$root")
    [ -z "$pids" ] && return 0
  done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
  sleep 0.5
}

# Mount points at or under $1, as this mount namespace sees them.
mounts_under() {
  findmnt -rn -o TARGET | awk -v r="$1" '$0 == r || index($0, r "/") == 1'
}

# ---------------------------------------------------------------------------------------------------------------
# Inner part: runs in a private mount namespace (see run_in_root), mounts what the tools need, runs the README's
# two commands in the chroot, unmounts. Arguments: ROOT LOGDIR APT_ARCHIVES_OR_EMPTY TERM VERBOSE.
# ---------------------------------------------------------------------------------------------------------------
inner_mounts=()
inner_root=

inner_mount() { # TARGET MOUNT-ARGS...
  local target=$1
  shift
  mount "$@" "$target"
  inner_mounts+=("$target")
}

inner_cleanup() {
  local status=$? i
  trap - EXIT TERM HUP
  [ -n "$inner_root" ] || exit "$status"
  kill_procs_in_root "$inner_root"
  for ((i = ${#inner_mounts[@]} - 1; i >= 0; i--)); do
    if mountpoint -q "${inner_mounts[i]}"; then
      umount "${inner_mounts[i]}" 2>/dev/null || umount -l "${inner_mounts[i]}" ||
        warn "could not unmount ${inner_mounts[i]}"
    fi
  done
  if [ -n "$(mounts_under "$inner_root")" ]; then
    warn "still mounted under $inner_root: $(mounts_under "$inner_root" | tr '\n' ' ')"
    [ "$status" -eq 0 ] && status=3
  fi
  exit "$status"
}

inner_main() {
  local root=$1 logdir=$2 archives=$3 term=$4 verbose=$5
  inner_root=$root
  trap inner_cleanup EXIT
  trap 'exit 143' TERM
  trap 'exit 129' HUP

  inner_mount "$root/proc" -t proc -o nosuid,nodev,noexec proc
  inner_mount "$root/sys" -t sysfs -o ro,nosuid,nodev,noexec sysfs
  # A tmpfs /dev with just the basic nodes rather than the host's /dev: nothing done in or to the root can
  # reach the host's device nodes.
  inner_mount "$root/dev" -t tmpfs -o mode=755,nosuid,size=1m devtmpfs-crmap
  mknod -m 666 "$root/dev/null" c 1 3
  mknod -m 666 "$root/dev/zero" c 1 5
  mknod -m 666 "$root/dev/full" c 1 7
  mknod -m 666 "$root/dev/random" c 1 8
  mknod -m 666 "$root/dev/urandom" c 1 9
  mknod -m 666 "$root/dev/tty" c 5 0
  ln -s /proc/self/fd "$root/dev/fd"
  ln -s /proc/self/fd/0 "$root/dev/stdin"
  ln -s /proc/self/fd/1 "$root/dev/stdout"
  ln -s /proc/self/fd/2 "$root/dev/stderr"
  ln -s pts/ptmx "$root/dev/ptmx"
  mkdir -m 755 "$root/dev/pts"
  mkdir -m 1777 "$root/dev/shm"
  inner_mount "$root/dev/pts" -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5,nosuid,noexec devpts
  inner_mount "$root/dev/shm" -t tmpfs -o mode=1777,nosuid,nodev shm
  inner_mount "$root/tmp" -t tmpfs -o mode=1777,nosuid,nodev tmp
  if [ -n "$archives" ]; then
    mkdir -p "$root/var/cache/apt/archives"
    inner_mount "$root/var/cache/apt/archives" --bind "$archives"
  fi

  local step status start end
  for step in demo test; do
    msg "running scripts/$step.sh in the fresh root (log: $logdir/$step.log)"
    start=$(now)
    status=0
    # env -i: nothing of the host's environment gets in. Background + wait, so that a TERM is acted on at once.
    if [ "$verbose" = 1 ]; then
      (
        chroot "$root" /usr/bin/env -i HOME=/root PATH="$chroot_path" LANG=C.UTF-8 TERM="$term" \
          /bin/bash -c 'cd /root/crmap && exec "$0"' "scripts/$step.sh" 2>&1 | tee "$logdir/$step.log"
        exit "${PIPESTATUS[0]}"
      ) &
    else
      chroot "$root" /usr/bin/env -i HOME=/root PATH="$chroot_path" LANG=C.UTF-8 TERM="$term" \
        /bin/bash -c 'cd /root/crmap && exec "$0"' "scripts/$step.sh" >"$logdir/$step.log" 2>&1 &
    fi
    wait $! || status=$?
    end=$(now)
    echo "$step $status $start $end" >>"$logdir/results"
    if [ "$status" -eq 0 ]; then
      msg "scripts/$step.sh succeeded in $(duration "$start" "$end")"
    else
      msg "scripts/$step.sh FAILED (exit status $status) after $(duration "$start" "$end"); its last lines:"
      tail -n 40 "$logdir/$step.log" | sed 's/^/    | /'
    fi
  done
}

if [ "${1:-}" = --inner ]; then
  shift
  inner_main "$@"
  exit 0
fi

# ---------------------------------------------------------------------------------------------------------------
# Outer part.
# ---------------------------------------------------------------------------------------------------------------
keep=${CRMAP_FRESH_KEEP:-0}
rebuild=${CRMAP_FRESH_REBUILD:-0}
verbose=${CRMAP_FRESH_VERBOSE:-0}
for arg in "$@"; do
  case "$arg" in
    --rebuild-cache) rebuild=1 ;;
    --keep) keep=1 ;;
    --verbose) verbose=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "check_fresh: unknown argument: $arg" >&2; usage >&2; exit 2 ;;
  esac
done

[ "$(uname -s)" = Linux ] || die "needs Linux (debootstrap, mount, chroot)"
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount and chroot); run it as root or with sudo"
for tool in git tar unshare chroot findmnt mountpoint flock mknod sha256sum; do
  command -v "$tool" >/dev/null || die "needs $tool on the host"
done

# The repository may belong to another user than root (sudo): let this script's own git commands read it.
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
script_dir=$(cd "$(dirname "$0")" && pwd)
script_path="$script_dir/$(basename "$0")"
repo=$(git -C "$script_dir" rev-parse --show-toplevel) || die "$script_dir is not in a git repository"
commit=$(git -C "$repo" rev-parse --verify "HEAD^{commit}") || die "$repo has no HEAD commit"
subject=$(git -C "$repo" log -1 --format=%s "$commit")

cache=${CRMAP_FRESH_CACHE:-/var/cache/crmap-fresh}
workdir=${CRMAP_FRESH_WORKDIR:-/var/tmp}
logdir=${CRMAP_FRESH_LOGDIR:-/var/tmp/crmap-fresh-logs/$(date +%Y%m%d-%H%M%S)-${commit:0:12}}
case "$cache$workdir$logdir" in *[[:space:]]*) die "CRMAP_FRESH_CACHE/WORKDIR/LOGDIR must not contain spaces" ;; esac
mkdir -p "$cache" "$workdir" "$logdir"
cache=$(cd "$cache" && pwd -P)
workdir=$(cd "$workdir" && pwd -P)
logdir=$(cd "$logdir" && pwd -P)
[ "$workdir" != / ] || die "CRMAP_FRESH_WORKDIR must not be /"

t_begin=$(now)
root=
inner_pid=
interrupted=0

# Deletes the temporary root, only once nothing runs in it and nothing is mounted under it.
cleanup_root() {
  [ -n "$root" ] && [ -d "$root" ] || return 0
  case "$root" in "$workdir"/crmap-fresh.??????) ;; *) warn "not deleting unexpected path $root"; return 1 ;; esac
  kill_procs_in_root "$root"
  local m
  for m in $(mounts_under "$root" | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  if [ -n "$(mounts_under "$root")" ]; then
    warn "NOT deleting $root: still mounted under it: $(mounts_under "$root" | tr '\n' ' ')"
    return 1
  fi
  if [ "$keep" = 1 ]; then
    msg "kept the fresh root (nothing mounted in it): $root"
    return 0
  fi
  rm -rf --one-file-system -- "$root" || { warn "could not delete $root completely"; return 1; }
  msg "removed the temporary root $root"
}

on_exit() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [ -n "$inner_pid" ] && kill -0 "$inner_pid" 2>/dev/null; then
    kill -TERM "$inner_pid" 2>/dev/null || true
    wait "$inner_pid" 2>/dev/null || true
  fi
  cleanup_root || { [ "$status" -eq 0 ] || [ "$status" -eq 1 ] && status=3; }
  if [ -n "$root" ] && [ -n "$(mounts_under "$root")" ]; then
    warn "leftover mounts under $root"
  fi
  case "$status" in
    0 | 1 | 2 | 3) ;;
    130 | 143 | 129) [ "$interrupted" = 1 ] || status=3 ;;
    *) status=3 ;;
  esac
  [ "$status" -eq 3 ] && echo "check_fresh: the check itself failed (see the messages above; logs: $logdir)" >&2
  msg "logs: $logdir"
  msg "total wall time $(duration "$t_begin" "$(now)"), exit status $status"
  exit "$status"
}
on_signal() {
  interrupted=1
  echo >&2
  warn "interrupted ($1), cleaning up"
  trap '' INT TERM HUP
  if [ -n "$inner_pid" ] && kill -0 "$inner_pid" 2>/dev/null; then
    kill -TERM "$inner_pid" 2>/dev/null || true
    local i
    for i in $(seq 60); do kill -0 "$inner_pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$inner_pid" 2>/dev/null && kill -KILL "$inner_pid" 2>/dev/null
    wait "$inner_pid" 2>/dev/null || true
  fi
  inner_pid=
  case "$1" in INT) exit 130 ;; HUP) exit 129 ;; *) exit 143 ;; esac
}
trap on_exit EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

msg "repository $repo, testing commit ${commit:0:12} ($subject)"
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  warn "the working tree has uncommitted changes; they are NOT tested (only commit ${commit:0:12} is)"
fi
untracked=$(git -C "$repo" ls-files --others --exclude-standard)
if [ -n "$untracked" ]; then
  warn "$(echo "$untracked" | wc -l) untracked file(s) are not in the clone either:" \
    "$(echo "$untracked" | head -n 5 | paste -sd ' ')"
fi
msg "logs in $logdir"

# --- debootstrap on the host --------------------------------------------------------------------------------------
if ! command -v debootstrap >/dev/null; then
  msg "installing debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap \
    >"$logdir/host-apt.log" 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update >>"$logdir/host-apt.log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap \
        >>"$logdir/host-apt.log" 2>&1; } ||
    die "could not install debootstrap (see $logdir/host-apt.log)"
fi

# --- mirrors from the host's apt sources --------------------------------------------------------------------------
# Prints the first URI of an enabled `deb` source whose suites include $1, from deb822 *.sources then one-line
# sources.list / *.list files (the *.disabled* and other files apt ignores are ignored too).
host_mirror_for_suite() {
  local want=$1 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v want="$want" '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && enabled !~ /^(no|false)$/ && (" " suites " ") ~ (" " want " ") && uri != "") {
          print uri; found = 1; exit
        }
        types = ""; suites = ""; uri = ""; enabled = ""; field = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]/ { if (field == "uris" && uri == "") uri = $1; if (field == "suites") suites = suites " " $0; next }
      {
        split($0, kv, ":"); field = tolower(kv[1]); value = substr($0, length(kv[1]) + 2)
        gsub(/^[ \t]+|[ \t]+$/, "", value)
        if (field == "types") types = value
        else if (field == "suites") suites = value
        else if (field == "enabled") enabled = tolower(value)
        else if (field == "uris") { split(value, u, /[ \t]+/); uri = u[1] }
      }
      END { if (!found) flush() }
    ' "$f" | awk 'NR == 1 && /^(https?|file):/' | grep . && return 0
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
      awk -v want="$want" '$1 == "deb" && $3 == want && $2 ~ /^(https?|file):/ { print $2; exit }' | grep . &&
      return 0
  done
  return 1
}

if [ -n "${CRMAP_FRESH_MIRROR:-}" ]; then
  mirror=$CRMAP_FRESH_MIRROR
  mirror_from="CRMAP_FRESH_MIRROR"
elif mirror=$(host_mirror_for_suite "$suite"); then
  mirror_from="the host's apt sources"
else
  mirror=http://deb.debian.org/debian
  mirror_from="default, no $suite source found on the host"
fi
if [ -n "${CRMAP_FRESH_SECURITY_MIRROR:-}" ]; then
  security_mirror=$CRMAP_FRESH_SECURITY_MIRROR
elif ! security_mirror=$(host_mirror_for_suite "$suite-security"); then
  security_mirror=http://deb.debian.org/debian-security
fi
mirror=${mirror%/}
security_mirror=${security_mirror%/}
msg "mirror $mirror ($mirror_from); security mirror $security_mirror"

# --- the cached pristine root ---------------------------------------------------------------------------------------
arch=$(dpkg --print-architecture)
key=$(printf '%s\n' "$suite" "$variant" "$arch" "$mirror" | sha256sum | cut -c1-12)
tarball="$cache/rootfs-$suite-$variant-$arch-$key.tar"
archives=
if [ "${CRMAP_FRESH_APT_CACHE:-1}" != 0 ]; then
  archives="$cache/apt-archives-$key"
fi

exec 9>"$cache/.lock"
if ! flock -n 9; then
  msg "waiting for another check_fresh run using $cache"
  flock 9
fi
if [ "$rebuild" = 1 ]; then
  msg "--rebuild-cache: dropping the cached root and .deb files"
  rm -f -- "$tarball"
  [ -n "$archives" ] && rm -rf --one-file-system -- "$archives"
fi
t_boot=$(now)
if [ -f "$tarball" ]; then
  msg "cache hit: $tarball (built $(date -r "$tarball" '+%Y-%m-%d %H:%M')); debootstrap skipped"
  boot_note="skipped, cached"
else
  msg "cache miss: debootstrap --variant=$variant $suite from $mirror (log: $logdir/debootstrap.log)"
  build=$(mktemp -d "$cache/debootstrap.XXXXXX")
  # In its own mount namespace: whatever debootstrap mounts (/proc, /sys, maybe /dev nodes) cannot be left
  # mounted on the host if it fails.
  if ! unshare --mount --propagation private -- \
    debootstrap --variant="$variant" --arch="$arch" "$suite" "$build" "$mirror" >"$logdir/debootstrap.log" 2>&1; then
    [ -f "$build/debootstrap/debootstrap.log" ] && cp "$build/debootstrap/debootstrap.log" "$logdir/debootstrap-inner.log"
    tail -n 20 "$logdir/debootstrap.log" | sed 's/^/    | /' >&2
    [ -z "$(mounts_under "$build")" ] && rm -rf --one-file-system -- "$build"
    die "debootstrap failed (see $logdir/debootstrap.log)"
  fi
  [ -z "$(mounts_under "$build")" ] || die "something is still mounted under $build; not caching it"
  chmod 755 "$build"
  tar -C "$build" --numeric-owner --xattrs --xattrs-include='*' -cf "$tarball.tmp" . ||
    die "could not write $tarball.tmp"
  mv -f "$tarball.tmp" "$tarball"
  printf 'suite=%s\nvariant=%s\narch=%s\nmirror=%s\ndebootstrap=%s\nbuilt=%s\n' "$suite" "$variant" "$arch" \
    "$mirror" "$(dpkg-query -W -f='${Version}' debootstrap 2>/dev/null)" "$(date -Is)" >"$tarball.info"
  rm -rf --one-file-system -- "$build"
  msg "cached the pristine root as $tarball ($(du -h "$tarball" | cut -f1))"
  boot_note="debootstrap, cache miss"
fi
flock -u 9
exec 9>&-
t_boot_end=$(now)
[ -n "$archives" ] && mkdir -p "$archives/partial"

# --- a brand-new root from the cache ----------------------------------------------------------------------------------
t_unpack=$(now)
root=$(mktemp -d "$workdir/crmap-fresh.XXXXXX")
tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -xpf "$tarball" || die "could not unpack $tarball"
chmod 755 "$root"
msg "fresh root $root ($(duration "$t_unpack" "$(now)") to unpack)"

cp -L /etc/resolv.conf "$root/etc/resolv.conf"
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security_mirror
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
printf '#!/bin/sh\n# check_fresh: no daemons are started in this chroot\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# --- the clone --------------------------------------------------------------------------------------------------------
t_clone=$(now)
if ! { git clone --quiet --no-local --no-checkout "$repo" "$root/root/crmap" &&
  git -C "$root/root/crmap" -c advice.detachedHead=false checkout --quiet --detach "$commit"; } \
  >"$logdir/clone.log" 2>&1; then
  sed 's/^/    | /' "$logdir/clone.log" >&2
  die "could not clone $repo at $commit into the fresh root"
fi
msg "cloned $repo at ${commit:0:12} into $root/root/crmap ($(git -C "$root/root/crmap" rev-list --count HEAD) commits, $(duration "$t_clone" "$(now)"))"
t_clone_end=$(now)

# --- the README's two commands, in a private mount namespace --------------------------------------------------------
if [ -n "$archives" ]; then
  exec 8>"$cache/apt-archives-$key.lock"
  if ! flock -n 8; then
    msg "waiting for another check_fresh run to finish with the .deb cache"
    flock 8
  fi
fi
: >"$logdir/results"
unshare --mount --propagation private -- \
  bash "$script_path" --inner "$root" "$logdir" "$archives" "${TERM:-dumb}" "$verbose" &
inner_pid=$!
inner_status=0
wait "$inner_pid" || inner_status=$?
inner_pid=
[ -n "$archives" ] && exec 8>&-

# What install_deps.sh had apt do in the fresh root, kept with the logs.
for f in history.log term.log; do
  if [ -f "$root/var/log/apt/$f" ]; then cp "$root/var/log/apt/$f" "$logdir/apt-$f"; fi
done
apt_note=
if [ -f "$logdir/apt-history.log" ]; then
  apt_note=$(awk '
    /^Start-Date:/ { sub(/^Start-Date: */, ""); if (start == "") start = $0 }
    /^End-Date:/ { sub(/^End-Date: */, ""); end = $0 }
    /^Install:/ { n += gsub(/\), /, "") + 1 }
    END { if (start != "") printf "%s|%s|%d", start, end, n }' "$logdir/apt-history.log")
fi

# --- summary ---------------------------------------------------------------------------------------------------------
demo_status=missing
test_status=missing
declare -A took
while read -r step status start end; do
  took[$step]=$(duration "$start" "$end")
  case "$step" in demo) demo_status=$status ;; test) test_status=$status ;; esac
done <"$logdir/results"

echo
msg "summary for commit ${commit:0:12} in a fresh debootstrap --variant=$variant $suite root"
printf 'check_fresh:   %-26s %s\n' "root ($boot_note)" "$(duration "$t_boot" "$t_boot_end")"
printf 'check_fresh:   %-26s %s\n' "unpack + clone" "$(duration "$t_unpack" "$t_clone_end")"
printf 'check_fresh:   %-26s %s\n' "scripts/demo.sh" "${took[demo]:-not run} (exit status $demo_status)"
if [ -n "$apt_note" ]; then
  IFS='|' read -r apt_start apt_end apt_count <<<"$apt_note"
  apt_secs=$(($(date -d "$apt_end" +%s) - $(date -d "$apt_start" +%s)))
  printf 'check_fresh:   %-26s %s\n' "  of which apt-get install" \
    "$(duration 0 "$apt_secs") ($apt_count packages, by install_deps.sh; see apt-history.log)"
fi
printf 'check_fresh:   %-26s %s\n' "scripts/test.sh" "${took[test]:-not run} (exit status $test_status)"
if [ -f "$logdir/test.log" ]; then
  msg "ctest summary:"
  {
    grep -E '^[0-9]+% tests passed' "$logdir/test.log" || echo "(no ctest summary line in test.log)"
    grep -E '^Total Test time' "$logdir/test.log" || true
    sed -n -e '/^The following tests did not run:/,/^[[:space:]]*$/p' \
      -e '/^The following tests FAILED:/,/^[[:space:]]*$/p' "$logdir/test.log" |
      sed -e 's/  # GetParam() = .*(/ (/' -e '/^[[:space:]]*$/d'
  } | sed 's/^/    /' | tee "$logdir/summary.txt"
fi

[ "$inner_status" -eq 0 ] || [ "$demo_status" != missing ] ||
  die "could not set up the mounts or run the commands in the fresh root (exit status $inner_status)"
failed=()
[ "$demo_status" = 0 ] || failed+=("scripts/demo.sh")
[ "$test_status" = 0 ] || failed+=("scripts/test.sh")
if [ "$inner_status" -ne 0 ] && [ ${#failed[@]} -eq 0 ]; then
  die "the run in the fresh root ended badly (exit status $inner_status: unmounting failed?)"
fi
if [ ${#failed[@]} -gt 0 ]; then
  msg "FAILED: ${failed[*]} (logs in $logdir)"
  exit 1
fi
msg "PASSED: scripts/demo.sh and scripts/test.sh succeeded in a fresh Debian 12 root"
exit 0
