#!/usr/bin/env bash
# Loads into hashcat every string secutil rewrote for it from John the
# Ripper's test vectors (tools/hashid TestJohnVectors with
# JOHN_HASHCAT_OUT=file), one `hashcat -m MODE --left` per string, and
# counts those hashcat parses ("loaded") by mode and John format.
#
#   JOHN_SRC=/path/to/john/src JOHN_HASHCAT_OUT=/tmp/tohashcat.tsv \
#       go test -run TestJohnVectors ./tools/hashid
#   bash docs/bench/john-hashcat-load.sh /tmp/tohashcat.tsv
set -euo pipefail
in=${1:?usage: john-hashcat-load.sh file.tsv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
loaded=0 failed=0
while IFS=$'\t' read -r mode label hash; do
	[ -n "$mode" ] || continue
	printf '%s\n' "$hash" >"$work/hash.txt"
	if out=$(hashcat -m "$mode" --left --potfile-path "$work/empty.pot" "$work/hash.txt" 2>&1) &&
		! grep -q 'No hashes loaded' <<<"$out"; then
		loaded=$((loaded + 1))
	else
		failed=$((failed + 1))
		printf 'not loaded: -m %s (%s) %.100s\n' "$mode" "$label" "$hash"
	fi
done <"$in"
echo "loaded $loaded of $((loaded + failed))"
