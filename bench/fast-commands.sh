#!/usr/bin/env bash
# Issue 30: CPU (user+sys, /usr/bin/time) of each command moved onto the start-up fast path, in
# alternated pairs: the fast path, then the same call through oclif (TKOMA_REF_NO_FAST_PATH=1),
# each on its own fresh copy of one small real root (MiniSearch's source and docs from
# node_modules as a git source, plus a pending approval request and a bare remote, synced).
# Usage: bench/fast-commands.sh [pairs=8] [command names…]; prints one line per command.
set -euo pipefail
PAIRS=${1:-8}
shift || true
BIN="$(cd "$(dirname "$0")/.." && pwd)/bin/run.cjs"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export TKOMA_REF_EMBEDDER=none NO_COLOR=1 TKOMA_REF_CODE_CACHE="$WORK/code-cache"
unset NODE_EXTRA_CA_CERTS
tk() { node "$BIN" "$@"; }

# The template root.
UP="$WORK/up"
mkdir -p "$UP" && cp -r "$(dirname "$BIN")/../node_modules/minisearch/src" "$(dirname "$BIN")/../node_modules/minisearch/README.md" "$UP/"
git -C "$UP" init -q -b main && git -C "$UP" add -A && git -C "$UP" -c user.name=b -c user.email=b@x commit -qm up
T="$WORK/template"
tk init --root "$T" --json >/dev/null
printf '\n[sources]\nlocal_roots = ["%s"]\n' "$WORK" >>"$T/tkoma-ref.toml"
git -C "$T" commit -qm sources -- tkoma-ref.toml
tk topic create --root "$T" --json --yes --title Kept --topic-id topic-kept --git "file://$UP" >/dev/null
REQ=$(tk topic create --root "$T" --json --input "{\"title\":\"Asked\",\"sources\":[{\"type\":\"git\",\"url\":\"file://$UP\"}]}" 2>/dev/null | node -e 'process.stdin.on("data",d=>console.log(JSON.parse(d).request_id))' || true) # exit 4: approval required
git init -q --bare "$WORK/remote.git" && git -C "$T" remote add origin "$WORK/remote.git"
tk sync --root "$T" --json >/dev/null

declare -A CMD=(
  [topic-update]="topic update kept --max-age-days 9 --json"
  [refresh]="refresh kept --json"
  [get]="get --topic kept --path README.md --json"
  [delete]="delete kept --yes --json"
  [approve]="approve $REQ --json"
  [deny]="deny $REQ --note smaller --json"
  [file-status]="file status --topic kept --path README.md --status obsolete --reason old --json"
  [index-status]="index status --json"
  [sync]="sync --json"
  [topic-list]="topic list --json"
  [topic-create]="topic create --json --yes --title Made --topic-id topic-made --git file://$UP --tag a"
)
ORDER=(topic-update refresh get delete approve deny file-status index-status sync topic-create topic-list)
[ $# -gt 0 ] && ORDER=("$@")

n=0
once() { # once <fast|oclif> <args…>: CPU seconds of one call on a fresh copy
  local side=$1; shift
  local root="$WORK/r$((n++))"
  cp -a "$T" "$root"
  if [ "$side" = oclif ]; then export TKOMA_REF_NO_FAST_PATH=1; else unset TKOMA_REF_NO_FAST_PATH; fi
  /usr/bin/time -f '%U %S' -o "$WORK/t" node "$BIN" "$@" --root "$root" >/dev/null 2>&1 || true
  unset TKOMA_REF_NO_FAST_PATH
  rm -rf "$root"
  awk '{ printf "%.2f\n", $1 + $2 }' "$WORK/t"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

printf '%-13s %9s %9s %7s  %s\n' command fast_s oclif_s saved load
for c in "${ORDER[@]}"; do
  read -r -a args <<<"${CMD[$c]}"
  once fast "${args[@]}" >/dev/null # writes this command's code cache
  : >"$WORK/fast" && : >"$WORK/oclif"
  for ((i = 0; i < PAIRS; i++)); do
    once fast "${args[@]}" >>"$WORK/fast"
    once oclif "${args[@]}" >>"$WORK/oclif"
  done
  f=$(median <"$WORK/fast") && o=$(median <"$WORK/oclif")
  printf '%-13s %9s %9s %6.0f%%  %s\n' "$c" "$f" "$o" "$(awk -v f="$f" -v o="$o" 'BEGIN { print (o - f) / o * 100 }')" "$(cut -d' ' -f1-3 /proc/loadavg)"
done
