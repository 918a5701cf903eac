/**
 * The kafka-wire runtime: what generated codecs import (`kafka-wire/runtime`). Uint8Array and
 * DataView only, no Node.js APIs, so it runs in browsers, Deno, Bun and workers.
 */
export * from "./errors.js";
export * from "./base64.js";
export * from "./utf8.js";
export * from "./writer.js";
export * from "./reader.js";
export * from "./json.js";
export * from "./codec.js";
export * from "./framing.js";
