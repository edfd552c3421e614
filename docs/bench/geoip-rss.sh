#!/usr/bin/env bash
# Resident memory of a secutil binary before and after its first /ip_info
# lookup. Usage: geoip-rss.sh BINARY [serve flags...]
# Prints VmRSS after start and after the first lookup (KiB), the lookup's
# HTTP status, then RssFile (file-backed pages: the binary, embedded data
# included) after the lookup.
# Run it under flock /tmp/secutil-measure.lock so no other measurement overlaps.
set -euo pipefail
bin=$1; shift
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
"$bin" user add -db "$dir/m.db" -email m@example.com -password 'violet tram ladder cinema' -plan pro >/dev/null
port=$((20000 + RANDOM % 20000))
"$bin" serve -db "$dir/m.db" -addr "127.0.0.1:$port" "$@" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
key=$(curl -s -X POST "http://127.0.0.1:$port/api/get_api_key" -H 'Content-Type: application/json' \
  -d '{"email":"m@example.com","password":"violet tram ladder cinema"}' | sed 's/.*"api_key":"\([^"]*\)".*/\1/')
sleep 1
before=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
status=$(curl -s -o "$dir/answer.json" -w '%{http_code}' -X POST "http://127.0.0.1:$port/api/v1/ip_info" \
  -H "X-API-Key: $key" -H 'Content-Type: application/json' -d '{"ip_string":"8.8.8.8"}')
after=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
file=$(awk '/RssFile/ {print $2}' "/proc/$pid/status")
echo "$before $after $status $file"
