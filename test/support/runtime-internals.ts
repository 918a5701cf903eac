/**
 * Every runtime module's exports in one place, for the runtime's own unit tests. Users get the
 * small public surface (`src/runtime/index.ts`); generated code gets `src/codegen/v1.ts`.
 */
export * from "../../src/runtime/errors.js";
export * from "../../src/runtime/wire.js";
export * from "../../src/runtime/base64.js";
export * from "../../src/runtime/utf8.js";
export * from "../../src/runtime/writer.js";
export * from "../../src/runtime/reader.js";
export * from "../../src/runtime/json.js";
export * from "../../src/runtime/codec.js";
export * from "../../src/runtime/framing.js";
