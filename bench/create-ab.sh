#!/usr/bin/env bash
# Issue 27: two builds' `topic create` of one repository in alternated pairs (A then B, then B
# then A, …), each on a fresh root with the repository's folder allowed as a local source:
# wall, user and system CPU and peak RSS (/usr/bin/time), the load, the chunk count, and whether
# both builds wrote the same .lex and .txt (the .rec differs in its generation only).
# Usage: bench/create-ab.sh PAIRS REPO_DIR A_PROJECT B_PROJECT [VAR=value… for B only]
# e.g.  bench/create-ab.sh 3 .bench-work/peers/repo-dioxus/same /tmp/base .
#       bench/create-ab.sh 4 .bench-work/peers/repo-dioxus/same . . TKOMA_REF_TRICKS_OFF=chunks-ahead
set -euo pipefail
PAIRS=$1
REPO=$(cd "$2" && pwd)
A=$(cd "$3" && pwd)
B=$(cd "$4" && pwd)
shift 4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export TKOMA_REF_EMBEDDER=none NO_COLOR=1

one() { # label project [VAR=value…]
  local label=$1 project=$2 kb=$WORK/kb-$1
  shift 2
  rm -rf "$kb"
  node "$project/bin/run.cjs" init --root "$kb" --json >/dev/null
  printf '[sources]\nlocal_roots = ["%s"]\n' "$(dirname "$REPO")" >>"$kb/tkoma-ref.toml"
  local t
  t=$({ env "$@" /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB" node "$project/bin/run.cjs" topic create --yes --json \
    --embedder none --title ab --git "file://$REPO" --root "$kb" >"$WORK/out-$label.json"; } 2>&1 | tail -1)
  echo "$label: $t, load $(cut -d' ' -f1 /proc/loadavg), $(grep -o '"chunk_count":[0-9]*' "$WORK/out-$label.json" | head -1)"
}

for p in $(seq 1 "$PAIRS"); do
  if [ $((p % 2)) = 1 ]; then one A "$A"; one B "$B" "$@"; else one B "$B" "$@"; one A "$A"; fi
  same=yes
  for ext in lex txt; do cmp -s "$WORK"/kb-A/.tkoma/index/topics/*/seg-*."$ext" "$WORK"/kb-B/.tkoma/index/topics/*/seg-*."$ext" || same=no; done
  echo "pair $p: .lex and .txt identical: $same"
done
