#!/usr/bin/env bash
# compare_hashcat.sh DRAWS: how hashcat --identify ranks the true mode of
# each "mode<TAB>hash" line of DRAWS, as TestFreshDraws writes them:
#
#   go test -run TestFreshDraws -v -hashid.seed=17 -hashid.draws=/tmp/draws.tsv ./tools/hashid
#   bash tools/hashid/testdata/compare_hashcat.sh /tmp/draws.tsv
#
# It prints the share of lines whose mode hashcat lists at all, in its first
# five, and first, the figures TestFreshDraws logs for secutil.
set -euo pipefail
draws=$1
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
total=0 among=0 five=0 first=0
while IFS=$'\t' read -r mode hash; do
  printf '%s\n' "$hash" > "$home/hash.txt"
  # hashcat prints its progress line without a newline before the first mode.
  modes=$(HOME=$home timeout 120 hashcat --identify --machine-readable "$home/hash.txt" 2>/dev/null |
    sed 's/.*Autodetected hash-modes//' | grep -E '^[0-9]+$' || true)
  rank=$(grep -nx -- "$mode" <<<"$modes" | head -1 | cut -d: -f1 || true)
  total=$((total + 1))
  if [ -n "$rank" ]; then
    among=$((among + 1))
    [ "$rank" -le 5 ] && five=$((five + 1))
    [ "$rank" -eq 1 ] && first=$((first + 1))
  fi
done < "$draws"
awk -v t=$total -v a=$among -v f=$five -v o=$first 'BEGIN {
  printf "hashcat --identify, %d strings: among the candidates %.1f%%, in the first five %.1f%%, first %.1f%%\n", t, 100*a/t, 100*f/t, 100*o/t }'
