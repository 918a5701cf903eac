/** Kafka's error codes by name, from the library's table (src/error-codes.ts). */

import { ERROR_CODES } from "../../src/error-codes.js";

const BY_NAME = new Map(ERROR_CODES.map((e) => [e.name, e.code]));

/** The int16 code of a Kafka error name such as `UNKNOWN_TOPIC_OR_PARTITION`. @throws Error for a name Kafka lacks. */
export function errorCode(name: string): number {
  const code = BY_NAME.get(name);
  if (code === undefined) throw new Error(`no Kafka error named ${name}`);
  return code;
}
