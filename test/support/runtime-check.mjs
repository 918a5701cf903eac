// What test/runtimes.test.ts runs in every runtime (Node.js 20/22/24, Deno, Bun, Chromium)
// against the built package. Plain JavaScript with no imports and no I/O: the entry that loads
// the package (runtime-check-esm.mjs, runtime-check-cjs.cjs, or a browser bundle) passes the
// three modules in, and the test passes the input (hand-worked cases, golden vectors) and
// asserts on the result. Nothing here decides pass or fail: it reports what the runtime did.
//
// It covers what a later runtime-specific fast path (e.g. Buffer on Node, feature-detected)
// could change: UTF-8 encode and decode (ASCII, multi-byte, long strings that take the
// TextEncoder/TextDecoder path, invalid bytes), uuids, int64 and the error classes.

const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (hex) => new Uint8Array((hex.match(/../g) ?? []).map((b) => parseInt(b, 16)));

/** The runtime this runs in, e.g. "node 22.23.5", "deno 2.9.6", "bun 1.4.5", or the browser's user agent. */
function runtimeName() {
  const g = globalThis;
  if (g.Deno?.version?.deno) return `deno ${g.Deno.version.deno}`;
  if (g.Bun?.version) return `bun ${g.Bun.version}`;
  if (g.process?.versions?.node) return `node ${g.process.versions.node}`;
  return g.navigator?.userAgent ?? "unknown";
}

/** Runs `fn`; returns `{ value }` or the error's public fields. */
function attempt(lib, fn) {
  try {
    return { value: fn() };
  } catch (e) {
    return {
      error: {
        name: e?.name,
        code: e?.code,
        path: e?.path,
        offset: e?.offset,
        decodeError: e instanceof lib.root.KafkaDecodeError,
        encodeError: e instanceof lib.root.KafkaEncodeError,
        wireError: e instanceof lib.runtime.KafkaWireError,
      },
    };
  }
}

/**
 * @param lib `{ root, runtime, one }`: the package root, `kafka-wire/runtime` and
 *   `kafka-wire/messages/StreamsGroupHeartbeatResponse`, as loaded by the entry.
 * @param input see `CheckInput` in test/runtimes.test.ts.
 */
export function check(lib, input) {
  const { root, runtime, one } = lib;
  const R = one.StreamsGroupHeartbeatResponse;
  const Q = root.StreamsGroupHeartbeatRequest;
  const response = (memberId) => R.create({ ...input.response, memberId });

  const created = R.encode(response(input.response.memberId), 0);
  const target = new Uint8Array(created.length + 3);
  const end = R.encodeInto(response(input.response.memberId), 0, target, 3);

  const result = {
    runtime: runtimeName(),
    globals: { Buffer: typeof globalThis.Buffer },
    sameCodec: root.StreamsGroupHeartbeatResponse === R && root.messages.StreamsGroupHeartbeatResponse === R,
    sameErrorClass: root.KafkaDecodeError === runtime.KafkaDecodeError,
    created: toHex(created),
    createdInto: toHex(target.subarray(3, end)),
    truncated: attempt(lib, () => R.decode(created.subarray(0, input.truncateTo), 0)).error,

    // Strings: encode each memberId, then decode the bytes again.
    memberIds: input.memberIds.map((memberId) => {
      const encoded = attempt(lib, () => toHex(R.encode(response(memberId), 0)));
      if (encoded.error) return encoded;
      return { value: encoded.value, back: R.decode(fromHex(encoded.value), 0).memberId };
    }),
    // Bodies with invalid UTF-8 in memberId: replaced by default, an error with `strictUtf8`.
    invalidUtf8: input.invalidUtf8.map((hex) => ({
      lenient: attempt(lib, () => R.decode(fromHex(hex), 0).memberId),
      strict: attempt(lib, () => R.decode(fromHex(hex), 0, { strictUtf8: true }).memberId),
    })),

    // int64: a heartbeat request whose task offsets are given as decimal strings (JSON has no bigint).
    int64: (() => {
      const init = (offsets) => ({
        ...input.heartbeat,
        taskOffsets: offsets.map((offset, i) => ({ subtopologyId: "0", partition: i + 1, offset })),
      });
      const encoded = Q.encode(Q.create(init(input.offsets.map((o) => BigInt(o)))), 0);
      const decoded = Q.decode(encoded, 0);
      return {
        hex: toHex(encoded),
        offsets: decoded.taskOffsets.map((t) => ({ type: typeof t.offset, value: String(t.offset) })),
        json: Q.toJson(decoded, 0),
        fromJson: toHex(Q.encode(Q.fromJson(Q.toJson(decoded, 0), 0), 0)),
        outOfRange: input.badOffsets.map(
          ({ value, as }) =>
            attempt(lib, () => Q.encode(Q.create(init([as === "bigint" ? BigInt(value) : Number(value)])), 0)).error,
        ),
      };
    })(),

    // Uuids: Kafka's 22-character URL-safe base64 form, both ways.
    uuids: {
      toString: input.uuidBytes.map((hex) => runtime.uuidToString(fromHex(hex), 0)),
      fromString: input.uuidTexts.map((text) => {
        const bytes = runtime.uuidFromString(text);
        return bytes === null ? null : toHex(bytes);
      }),
      zero: runtime.ZERO_UUID,
    },

    // Golden vectors written by Kafka: decode, JSON, encode again, and back from the JSON.
    golden: input.golden.map(({ name, version, hex }) => {
      const codec = root.messages[name];
      return attempt(lib, () => {
        const decoded = codec.decode(fromHex(hex), version);
        const json = codec.toJson(decoded, version);
        return {
          json,
          reencoded: toHex(codec.encode(decoded, version)),
          fromJson: toHex(codec.encode(codec.fromJson(json, version), version)),
        };
      });
    }),
  };
  return result;
}
