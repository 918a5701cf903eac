#!/usr/bin/env bash
# Builds the Go client of test/clients-sarama.test.ts: test/support/clients/sarama/main.go on
# Debian's Shopify/sarama 1.22.1 (golang-github-shopify-sarama-dev) with Debian's Go 1.19
# (golang-go), offline: GOPATH mode (GO111MODULE=off) on the sources Debian installs in
# /usr/share/gocode, GOPROXY=off and GOFLAGS= so that nothing is looked up on the network.
#
# Output (the test looks here): $KAFKA_WIRE_CACHE/sarama-1.22.1/ (default ~/.cache/kafka-wire)
#   sarama-client      the program
#   sarama-client.stamp  what it was built from (source, Go and sarama versions); the test
#                        rebuilds nothing and fails on a stale stamp
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=test/support/clients/sarama/main.go
CACHE_ROOT="${KAFKA_WIRE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kafka-wire}"
DEST="$CACHE_ROOT/sarama-1.22.1"
started=$SECONDS

if ! command -v go >/dev/null || [ ! -d /usr/share/gocode/src/github.com/Shopify/sarama ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq golang-go golang-github-shopify-sarama-dev
fi

stamp="$(sha256sum "$SRC" | cut -d' ' -f1) $(go version) sarama $(dpkg-query -W -f='${Version}' golang-github-shopify-sarama-dev)"
if [ "$(cat "$DEST/sarama-client.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$DEST/sarama-client" ]; then
  echo "sarama client: cached in $DEST"
  exit 0
fi
mkdir -p "$DEST"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$SRC" "$work/main.go"
# GOCACHE in the cache folder: a rebuild after a source change recompiles only main.go.
# -Wno-deprecated-declarations: DataDog/zstd (sarama's zstd, through cgo) calls a deprecated
# libzstd function, which is all the compiler would say.
(cd "$work" && GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS= GOCACHE="$DEST/go-build" \
  CGO_ENABLED=1 CGO_CFLAGS="-O2 -Wno-deprecated-declarations" go build -o "$DEST/sarama-client.tmp.$$" .)
mv "$DEST/sarama-client.tmp.$$" "$DEST/sarama-client"
echo "$stamp" >"$DEST/sarama-client.stamp"
echo "sarama client: built into $DEST in $((SECONDS - started)) s"
