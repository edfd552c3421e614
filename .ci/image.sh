#!/usr/bin/env bash
# Exercises deploy/Dockerfile. With a Docker engine it builds the image and
# starts it. Without one (this CI), it runs the build stage's own command,
# deploy/rootfs.sh, then assembles the final stage as its COPY lines say and
# runs it as the image would: the Dockerfile's USER, ENV, ENTRYPOINT and
# CMD, chrooted into that otherwise empty root (stricter than a container,
# which also gets /dev and /proc). It needs root for chroot.
set -euo pipefail
cd "$(dirname "$0")/.."
dockerfile=deploy/Dockerfile

fail() { echo "image check: $*" >&2; exit 1; }
health() { # waits for GET $1/health to answer 200
  for _ in $(seq 100); do
    curl -fsS "$1/health" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

if docker info >/dev/null 2>&1; then
  docker build -f "$dockerfile" --build-arg VERSION=ci -t secutil-ci .
  cid=$(docker run -d -p 127.0.0.1::8080 secutil-ci)
  trap 'docker rm -f "$cid" >/dev/null' EXIT
  health "http://$(docker port "$cid" 8080/tcp | head -1)" || fail "the container did not answer /health"
  echo "image check: docker build and run passed"
  exit 0
fi

[ "$(id -u)" = 0 ] || { echo "image check: skipped (no Docker engine, and chroot needs root)"; exit 0; }
grep -qx 'RUN VERSION="$VERSION" sh deploy/rootfs.sh /rootfs' "$dockerfile" ||
  fail "the build stage no longer runs deploy/rootfs.sh; update this check with it"

work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

# Build stage: the same command the Dockerfile runs.
VERSION=ci sh deploy/rootfs.sh "$work/rootfs"
# (the build stage's WORKDIR is the source; its output is /rootfs)

# Final stage, FROM scratch: each "COPY --from=build [--chown=U:G] SRC DST".
image="$work/image"
mkdir -p "$image"
while read -r _ _ first second third; do
  owner=""
  if [[ $first == --chown=* ]]; then owner=${first#--chown=}; src=$second; dst=$third
  else src=$first; dst=$second; fi
  src="$work$src"
  if [ -d "$src" ]; then
    mkdir -p "$image$dst"
    cp -a "$src/." "$image$dst"
  else
    mkdir -p "$(dirname "$image$dst")"
    cp -a "$src" "$image$dst"
  fi
  [ -z "$owner" ] || chown -R "$owner" "$image$dst"
done < <(grep '^COPY --from=build ' "$dockerfile")

chroot=$(command -v chroot)
user=$(awk '$1 == "USER" {print $2}' "$dockerfile")
read -r -a envs <<<"$(awk '$1 == "ENV" {$1 = ""; print}' "$dockerfile")"
entrypoint=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)"\]$/\1/p' "$dockerfile")
cmd=$(sed -n 's/^CMD \["\([^"]*\)"\]$/\1/p' "$dockerfile")
volume=$(awk '$1 == "VOLUME" {print $2}' "$dockerfile")
[ -n "$user" ] && [ -n "$entrypoint" ] && [ -n "$cmd" ] && [ -n "$volume" ] || fail "cannot read USER, ENTRYPOINT, CMD or VOLUME"

# Static: no ELF interpreter, no cgo.
! readelf -l "$image$entrypoint" | grep -q INTERP || fail "$entrypoint is dynamically linked"
go version -m "$image$entrypoint" | grep -q 'CGO_ENABLED=0' || fail "$entrypoint was built with cgo"
[ "$(stat -c %u:%g "$image$volume")" = "$user" ] || fail "$volume is not owned by the image's user $user"

version=$(env -i "$chroot" --userspec="$user" "$image" "$entrypoint" version | head -1)
[ "$version" = "secutil ci" ] || fail "version printed \"$version\""

# Serve as the image does; the address is moved to loopback, port 0.
out="$work/serve.out"
env -i "${envs[@]}" SECUTIL_ADDR=127.0.0.1:0 "$chroot" --userspec="$user" "$image" "$entrypoint" "$cmd" >"$out" 2>"$work/serve.err" &
pid=$!
url=""
for _ in $(seq 100); do
  url=$(sed -n 's/.*listening on \(http:\/\/[^ ]*\).*/\1/p' "$out")
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] && health "$url" || { cat "$work/serve.err" >&2; fail "the server did not come up"; }
kill -TERM "$pid"
wait "$pid" || fail "the server did not stop cleanly on SIGTERM"
pid=""
for f in secutil.db secutil-hashes.db; do
  [ "$(stat -c %u:%g "$image$volume/$f")" = "$user" ] || fail "$volume/$f is missing or not owned by $user"
done
echo "image check: build stage and final stage exercised without Docker (static, user $user, database in $volume)"
