#!/usr/bin/env bash
# Builds librdkafka 2.15.1, the second mock peer of the interop tests, and compiles
# test/support/mock-cluster.c against it. The C source comes from the npm tarball of
# @confluentinc/kafka-javascript 1.10.1 (deps/librdkafka), checked against the sha512 below
# (npm's `integrity` for that version), so nothing but npm and Debian packages is downloaded.
#
# Output (the tests look here; see test/support/librdkafka.ts):
#   $KAFKA_WIRE_CACHE/librdkafka-2.15.1/        (default ~/.cache/kafka-wire; outside node_modules,
#     lib/librdkafka.so.1                         which `npm ci` wipes)
#     include/librdkafka/rdkafka.h, rdkafka_mock.h
#     bin/mock-cluster
# The library is kept while its .stamp file matches (tarball integrity and configure flags); the
# mock program is recompiled when its source changes (a fraction of a second).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=2.15.1
PACKAGE=@confluentinc/kafka-javascript@1.10.1
INTEGRITY=sha512-KVePUBn21EqCVP9mfxzEuM3SYJHHEF7X+iiC2e43QQgDSyEaksInmCGooT3w5q+cNAdkSCrK71j0ICfqoSqZLw==

CACHE_ROOT="${KAFKA_WIRE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kafka-wire}"
DEST="$CACHE_ROOT/librdkafka-$VERSION"
MOCK_SRC=test/support/mock-cluster.c
# No TLS, SASL/GSSAPI or HTTP: the mock listens on plaintext loopback only. Optimized (-O2, as
# librdkafka's releases and Debian's package are): the broker benchmark runs kcat and the mock on
# this build, and an -O0 build's kcat took 0.7-0.8 s of CPU (user + system) to produce 1,000,000
# records to the mock where this one takes 0.5-0.55, CPU that a 2-core machine takes from the
# cluster being measured. The build takes about 30 s on 2 cores. --no-download: mklove must use the modules in the tarball.
CONFIGURE_FLAGS="--no-download --disable-ssl --disable-gssapi --disable-curl"
# What the cached build was made from; a different stamp rebuilds.
STAMP="$INTEGRITY $CONFIGURE_FLAGS"
started=$SECONDS

# Compilers and the compression libraries librdkafka links (configure finds them by pkg-config).
if ! command -v gcc >/dev/null || ! command -v make >/dev/null || ! command -v pkg-config >/dev/null ||
  [ ! -f /usr/include/zlib.h ] || [ ! -f /usr/include/zstd.h ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    build-essential pkg-config zlib1g-dev libzstd-dev
fi

if [ "$(cat "$DEST/.stamp" 2>/dev/null)" = "$STAMP" ] && [ -f "$DEST/lib/librdkafka.so.1" ]; then
  echo "librdkafka $VERSION: cached in $DEST"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack "$PACKAGE" --silent >/dev/null)
  tarball="$(echo "$work"/*.tgz)"
  actual="sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tarball")"
  if [ "$actual" != "$INTEGRITY" ]; then
    echo "build-librdkafka: $PACKAGE has integrity $actual, expected $INTEGRITY" >&2
    exit 1
  fi
  tar -xzf "$tarball" -C "$work" package/deps/librdkafka
  src="$work/package/deps/librdkafka"
  grep -q "RD_KAFKA_VERSION 0x020f01ff" "$src/src/rdkafka.h" || {
    echo "build-librdkafka: $PACKAGE does not carry librdkafka $VERSION" >&2
    exit 1
  }
  # shellcheck disable=SC2086 # word splitting intended
  (cd "$src" && ./configure $CONFIGURE_FLAGS >"$work/configure.log" 2>&1) || {
    cat "$work/configure.log" >&2
    exit 1
  }
  # Only the shared library: mock-cluster links it, and kcat loads it through LD_LIBRARY_PATH.
  make -C "$src/src" -j"$(nproc)" librdkafka.so.1 >"$work/make.log" 2>&1 || {
    tail -50 "$work/make.log" >&2
    exit 1
  }
  staging="$DEST.tmp.$$"
  rm -rf "$staging"
  mkdir -p "$staging/lib" "$staging/include/librdkafka" "$staging/bin"
  cp "$src/src/librdkafka.so.1" "$staging/lib/"
  ln -s librdkafka.so.1 "$staging/lib/librdkafka.so"
  cp "$src/src/rdkafka.h" "$src/src/rdkafka_mock.h" "$staging/include/librdkafka/"
  echo "$STAMP" >"$staging/.stamp"
  rm -rf "$DEST"
  mkdir -p "$CACHE_ROOT"
  mv "$staging" "$DEST"
  echo "librdkafka $VERSION: built into $DEST in $((SECONDS - started)) s"
fi

# The mock program, recompiled when its source changes. $ORIGIN: it finds the library without
# LD_LIBRARY_PATH.
sum="$(sha256sum "$MOCK_SRC" | cut -d' ' -f1)"
if [ "$(cat "$DEST/bin/mock-cluster.sha256" 2>/dev/null)" != "$sum" ] || [ ! -x "$DEST/bin/mock-cluster" ]; then
  mkdir -p "$DEST/bin"
  gcc -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -isystem "$DEST/include" "$MOCK_SRC" \
    -o "$DEST/bin/mock-cluster.tmp.$$" -L"$DEST/lib" -lrdkafka -Wl,-rpath,'$ORIGIN/../lib'
  mv "$DEST/bin/mock-cluster.tmp.$$" "$DEST/bin/mock-cluster"
  echo "$sum" >"$DEST/bin/mock-cluster.sha256"
  echo "mock-cluster: compiled into $DEST/bin"
fi
# A smoke run: stdin at end of file, so it starts, prints and stops.
smoke="$("$DEST/bin/mock-cluster" </dev/null 2>&1)"
# (librdkafka appends -O0 to its version string when built without optimization: a stale build.)
grep -qx "version=$VERSION" <<<"$smoke" || {
  echo "build-librdkafka: $DEST/bin/mock-cluster does not run librdkafka $VERSION: $smoke" >&2
  exit 1
}
echo "librdkafka $VERSION peer ready in $((SECONDS - started)) s"
