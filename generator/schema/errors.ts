/**
 * Errors raised while reading a schema file.
 */

/** Where and why a schema was rejected. */
export interface SchemaErrorInit {
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, counted in UTF-16 code units (as editors such as VS Code do). */
  readonly column: number;
  /** The human reason, one line, without the location prefix. */
  readonly reason: string;
  /** Field path from the message root, e.g. `Topology.Subtopologies.SourceTopics` or `commonStructs.Endpoint.Port`. */
  readonly path?: string;
}

/**
 * A syntax or validation error in a schema file. The message is a single line
 * `file:line:column: [path: ]reason`, the form editors and terminals turn into links.
 */
export class SchemaError extends Error {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly path?: string;
  readonly reason: string;

  constructor(init: SchemaErrorInit) {
    const where = `${init.file}:${init.line}:${init.column}`;
    super(init.path ? `${where}: ${init.path}: ${init.reason}` : `${where}: ${init.reason}`);
    this.name = "SchemaError";
    this.file = init.file;
    this.line = init.line;
    this.column = init.column;
    this.reason = init.reason;
    if (init.path !== undefined) this.path = init.path;
  }
}
