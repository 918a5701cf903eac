#!/usr/bin/env bash
# Installs @confluentinc/kafka-javascript 1.10.1 (the client of test/clients-kafka-javascript.test.ts)
# into a cache folder outside the repository's node_modules (which `npm ci` wipes), with its native
# addon compiled by node-gyp and linked dynamically against the librdkafka 2.15.1 of
# .ci/build-librdkafka.sh, so that the client runs the same librdkafka as the other 2.15.1 peers.
#
# Nothing but npm is downloaded: the package and its dependencies come from .ci/kafka-javascript's
# lock file (npm checks their integrity); node-pre-gyp's attempt to download a prebuilt addon is not
# made (the install script is skipped and node-gyp is run directly, on the Node.js headers that
# ship with Node.js: --nodedir); the package's bundled librdkafka is not built (BUILD_LIBRDKAFKA=0).
# The addon uses librdkafka's C++ wrapper (librdkafka++), which build-librdkafka.sh does not
# build: it is compiled here from the package's own copy of src-cpp (the same 2.15.1 source).
#
# Output (test/support/clients/kafka-javascript.ts looks here):
#   $KAFKA_WIRE_CACHE/kafka-javascript-1.10.1/   (default ~/.cache/kafka-wire)
#     node_modules/@confluentinc/kafka-javascript  (build/Release/confluent-kafka-javascript.node)
#     lib/librdkafka++.so.1
# Kept while its .stamp matches (lock file, librdkafka build, Node.js ABI, this script).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.10.1
LIBRDKAFKA_VERSION=2.15.1
CACHE_ROOT="${KAFKA_WIRE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kafka-wire}"
LIBRDKAFKA="$CACHE_ROOT/librdkafka-$LIBRDKAFKA_VERSION"
DEST="$CACHE_ROOT/kafka-javascript-$VERSION"
PROJECT=.ci/kafka-javascript
ADDON=node_modules/@confluentinc/kafka-javascript/build/Release/confluent-kafka-javascript.node
started=$SECONDS

# Brings the library up to date first (a no-op when its cache is): a stale build (another
# version, or flags since changed) is rebuilt, and the stamp below then differs.
bash .ci/build-librdkafka.sh
command -v g++ >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq g++
}

STAMP="$(cat "$PROJECT/package-lock.json" "$LIBRDKAFKA/.stamp" "$0" | sha256sum | cut -d' ' -f1) node-abi-$(node -p process.versions.modules)"
if [ "$(cat "$DEST/.stamp" 2>/dev/null)" = "$STAMP" ] && [ -f "$DEST/$ADDON" ]; then
  echo "@confluentinc/kafka-javascript $VERSION: cached in $DEST"
  exit 0
fi

staging="$DEST.tmp.$$"
trap 'rm -rf "$staging"' EXIT
rm -rf "$staging"
mkdir -p "$staging/lib" "$staging/include"
cp "$PROJECT/package.json" "$PROJECT/package-lock.json" "$staging/"
npm ci --prefix "$staging" --ignore-scripts --no-audit --no-fund --silent
pkg="$staging/node_modules/@confluentinc/kafka-javascript"
grep -q "RD_KAFKA_VERSION 0x020f01ff" "$pkg/deps/librdkafka/src/rdkafka.h" || {
  echo "install-kafka-javascript: the package does not carry librdkafka $LIBRDKAFKA_VERSION's source" >&2
  exit 1
}

# librdkafka++ on the cached librdkafka. Its rpath names the final folder, not the staging one.
# -O0: the C++ wrapper only forwards to librdkafka (built optimized), and compiles faster so.
# src-cpp includes mklove's ../config.h but uses none of its macros: an empty one stands in for
# running librdkafka's configure again.
cp "$pkg/deps/librdkafka/src-cpp/rdkafkacpp.h" "$staging/include/"
[ -f "$pkg/deps/librdkafka/config.h" ] || : >"$pkg/deps/librdkafka/config.h"
g++ -std=c++11 -shared -fPIC -O0 -w -I"$LIBRDKAFKA/include/librdkafka" "$pkg"/deps/librdkafka/src-cpp/*.cpp \
  -o "$staging/lib/librdkafka++.so.1" -Wl,-soname,librdkafka++.so.1 \
  -L"$LIBRDKAFKA/lib" -lrdkafka -Wl,-rpath,"$LIBRDKAFKA/lib"
ln -s librdkafka++.so.1 "$staging/lib/librdkafka++.so"

# The addon: node-gyp (npm's own copy) on Node.js's headers. BUILD_LIBRDKAFKA=0 makes binding.gyp
# link `-lrdkafka -lrdkafka++` (found through LIBRARY_PATH, headers through CPATH) instead of
# building deps/librdkafka; CKJS_LINKING=dynamic is its dynamic-linking mode (no static archive).
node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
nodedir="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
[ -f "$nodedir/include/node/node.h" ] || {
  echo "install-kafka-javascript: no Node.js headers in $nodedir/include/node (node-gyp would download them)" >&2
  exit 1
}
(
  cd "$pkg"
  BUILD_LIBRDKAFKA=0 CKJS_LINKING=dynamic \
    CPATH="$staging/include:$LIBRDKAFKA/include/librdkafka" \
    LIBRARY_PATH="$staging/lib:$LIBRDKAFKA/lib" \
    LDFLAGS="-Wl,-rpath,$DEST/lib:$LIBRDKAFKA/lib" \
    JOBS="$(nproc)" \
    node "$node_gyp" rebuild --nodedir="$nodedir" --release >"$staging/node-gyp.log" 2>&1
) || {
  tail -40 "$staging/node-gyp.log" >&2
  exit 1
}
# The bundled librdkafka was neither built nor linked: the addon needs exactly the cached libraries.
if find "$pkg/build" -name 'librdkafka*' | grep -q .; then
  echo "install-kafka-javascript: node-gyp built the bundled librdkafka" >&2
  exit 1
fi

rm -rf "$DEST"
mv "$staging" "$DEST"
trap - EXIT
# A smoke run (where the addon's rpath points, so after the move); the stamp is written only once
# it passed, and a failed install is removed, so that no later run takes it as cached.
fail() {
  echo "install-kafka-javascript: $1" >&2
  rm -rf "$DEST"
  exit 1
}
# The addon loads and reports librdkafka 2.15.1 (an -O0 build would say "2.15.1-O0").
linked="$(node -e 'const k = require(process.argv[1]); process.stdout.write(k.librdkafkaVersion)' \
  "$DEST/node_modules/@confluentinc/kafka-javascript")"
case "$linked" in
"$LIBRDKAFKA_VERSION") ;;
*) fail "the addon runs librdkafka '$linked', expected $LIBRDKAFKA_VERSION (run: bash .ci/build-librdkafka.sh)" ;;
esac
ldd "$DEST/$ADDON" | grep -q "$LIBRDKAFKA/lib/librdkafka.so.1" ||
  fail "the addon does not load $LIBRDKAFKA/lib/librdkafka.so.1: $(ldd "$DEST/$ADDON")"
echo "$STAMP" >"$DEST/.stamp"
echo "@confluentinc/kafka-javascript $VERSION: installed into $DEST in $((SECONDS - started)) s"
