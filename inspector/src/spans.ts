/**
 * Where field spans come from: none yet. Branch `spans` provides the runtime function that
 * decodes a message and returns every field's path, offset and length; until it is merged the
 * page highlights the spans it knows itself (size prefix, header, body, bytes and records
 * fields, record batches and their headers, records).
 */

import type { FieldSpans } from "./inspect.js";

export const fieldSpans: FieldSpans | null = null;
