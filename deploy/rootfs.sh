#!/bin/sh
# Builds the static secutil binary and lays out the container image's
# filesystem under $1: /secutil, /data (the database volume), /tmp and the
# CA certificates. The Dockerfile's build stage runs this script, and CI,
# which has no Docker engine, runs the same script (.ci/image.sh).
# VERSION names the build (default: git describe, else "dev").
set -eu
root=${1:?usage: deploy/rootfs.sh DIR}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}

mkdir -p "$root/data" "$root/tmp" "$root/etc/ssl/certs"
# Static (no cgo: the SQLite driver is pure Go), reproducible (-trimpath),
# and stamped with the commit when built from a git checkout.
CGO_ENABLED=0 go build -trimpath -buildvcs=auto \
  -ldflags "-s -w -X main.version=$version" -o "$root/secutil" .
chmod 0755 "$root/secutil"
chmod 0700 "$root/data"
chmod 1777 "$root/tmp"
# The image runs as this user (the Dockerfile's USER), who must own the volume.
if [ "$(id -u)" = 0 ]; then
  chown 65532:65532 "$root/data" "$root/tmp"
fi
# For an https -hash-upstream or an SMTP relay over TLS.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi
