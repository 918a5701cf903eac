/**
 * `kafka-wire encode` from partial Kafka JSON: the fields a JSON object leaves out take their
 * schema defaults, at any depth, as `create()` fills an init. Kafka's JsonConverter (and
 * `fromJson`) need every field of the version; `--strict` keeps that.
 *
 * The defaults come from the codec itself: `create(skeleton)` builds a message with a default
 * struct wherever the input has an object (and as many array elements as it has), and its JSON
 * form is the all-defaults document the input is laid over. No schema is read here.
 */

import { isLosslessNumber, parse, stringify } from "lossless-json";
import type { MessageCodec } from "../src/runtime/index.js";

type Json = unknown;

/** A JSON object (not an array, not lossless-json's number, which keeps int64 digits). */
const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !isLosslessNumber(v);

/** The input's structs: every object (and array of objects) kept, every other value left out. */
function skeleton(value: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, v] of Object.entries(value)) {
    if (isObject(v)) out[key] = skeleton(v);
    else if (Array.isArray(v) && v.length > 0 && v.every(isObject)) out[key] = v.map(skeleton);
  }
  return out;
}

/** `value` laid over `defaults`: objects key by key, arrays element by element; anything else is `value`. */
function overlay(value: Json, defaults: Json): Json {
  if (isObject(value) && isObject(defaults)) {
    const out: Record<string, Json> = { ...defaults };
    for (const [key, v] of Object.entries(value)) out[key] = key in defaults ? overlay(v, defaults[key]) : v;
    return out;
  }
  if (Array.isArray(value) && Array.isArray(defaults) && value.length === defaults.length) {
    return value.map((v, i) => overlay(v, defaults[i]));
  }
  return value;
}

/**
 * `text` (Kafka JSON of `codec` at `version`, possibly partial) with every missing field at its
 * default. Text that is not a JSON object, or whose shape `create` cannot take, is returned as it
 * is, so that `fromJson` reports its error (with the field path).
 */
export function withDefaults(codec: MessageCodec<unknown>, text: string, version: number): string {
  let value: Json;
  try {
    value = parse(text);
  } catch {
    return text;
  }
  if (!isObject(value)) return text;
  let defaults: Json;
  try {
    const init = skeleton(value) as Parameters<typeof codec.create>[0];
    defaults = parse(codec.toJson(codec.create(init), version));
  } catch {
    return text;
  }
  return stringify(overlay(value, defaults)) ?? text;
}

/** The all-defaults message of `codec` at `version` as Kafka JSON: a template to fill in. */
export function template(codec: MessageCodec<unknown>, version: number): string {
  return codec.toJson(codec.create(), version);
}
