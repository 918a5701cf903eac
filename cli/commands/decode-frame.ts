/** `kafka-wire decode-frame [hex]`: a size-prefixed request or response frame to Kafka JSON. */

import type { Command } from "commander";
import { HEADER_VERSION_EXCEPTIONS, type ApiCodecs, type Protocol } from "../../src/runtime/framing.js";
import type { DecodeOptions } from "../../src/runtime/index.js";
import { KafkaWireError } from "../../src/runtime/errors.js";
import { CliError, contextOf, errorText, type CliIO } from "../context.js";
import { decodeOptions, explainErrors, withDecodeFlags, type DecodeFlags } from "../decoding.js";
import { closestNames, loadCodecs, parseVersion, SCHEMA_SET_HELP, withSchemaSet } from "../schema-set.js";
import { eachLine, indentJson, parseHex, readHex, writeOut } from "../text-io.js";

interface FrameFlags extends DecodeFlags {
  readonly apiKey?: string;
  readonly apiVersion?: string;
}

/**
 * `decode-frame`: a whole size-prefixed frame. A request frame names its api key and version in
 * its header; a response frame does not, so `--api-key` and `--api-version` say what it answers.
 */
async function decodeFrameCommand(io: CliIO, hex: string | undefined, flags: FrameFlags): Promise<void> {
  if ((flags.apiKey === undefined) !== (flags.apiVersion === undefined)) {
    throw new CliError(
      `${flags.apiKey === undefined ? "--api-version needs --api-key" : "--api-key needs --api-version"}: a response frame is decoded with both (a request frame with neither)`,
    );
  }
  const codecs = await loadCodecs(io, flags);
  const protocol = codecs.protocol;
  const requestHeader = codecs.messages["RequestHeader"];
  const responseHeader = codecs.messages["ResponseHeader"];
  if (protocol === undefined || requestHeader === undefined || responseHeader === undefined) {
    throw new CliError(
      `decode-frame needs the RequestHeader and ResponseHeader schemas, which ${codecs.shipped ? "the shipped codecs do not have" : "this schema set does not have"}: pass --kafka <version>, or --schemas with Kafka's clients/src/main/resources/common/message folder`,
    );
  }
  const response =
    flags.apiKey === undefined
      ? undefined
      : { api: findApi(protocol, flags.apiKey), version: parseVersion(flags.apiVersion!) };
  const options = decodeOptions(flags);
  const decodeOne = async (input: string | Uint8Array, line?: number): Promise<void> => {
    const frame = typeof input === "string" ? parseHex(input) : input;
    let json: string;
    let body: unknown;
    if (response === undefined) {
      const d = asRequest(protocol, frame, options);
      const v = d.header.requestApiVersion;
      json =
        `{"api":${JSON.stringify(d.api.name)},"apiKey":${d.api.apiKey},"apiVersion":${v},` +
        `"headerVersion":${d.headerVersion},"header":${requestHeader.toJson(d.header, d.headerVersion)},` +
        `"body":${d.api.request.toJson(d.body, v)}}`;
      body = d.body;
    } else {
      const { api, version } = response;
      const d =
        api.apiKey === HEADER_VERSION_EXCEPTIONS.apiVersionsApiKey
          ? protocol.decodeApiVersionsResponseFrame(frame, version, options)
          : protocol.decodeResponseFrame(frame, api.apiKey, version, options);
      json =
        `{"api":${JSON.stringify(api.name)},"apiKey":${api.apiKey},"apiVersion":${d.apiVersion},` +
        `"headerVersion":${d.headerVersion},"header":${responseHeader.toJson(d.header, d.headerVersion)},` +
        `"body":${api.response.toJson(d.body, d.apiVersion)}}`;
      body = d.body;
    }
    await writeOut(io.stdout, (flags.jsonl === true ? json : indentJson(json)) + "\n");
    if (flags.explainErrors === true) await explainErrors(io, body, line);
  };
  if (flags.jsonl === true) await eachLine(io, hex, "hex", decodeOne);
  else await decodeOne(hex ?? (await readHex(io.stdin, "hex")));
}

/**
 * Decodes `frame` as a request frame. A response frame read so fails somewhere in the body its
 * first bytes seem to announce, so the error says what was assumed and how to read a response.
 * @throws CliError with the codec's error and that hint (the size prefix's errors, at byte 0, as they are).
 */
function asRequest(protocol: Protocol, frame: Uint8Array, options: DecodeOptions) {
  try {
    return protocol.decodeRequestFrame(frame, options);
  } catch (error) {
    if (!(error instanceof KafkaWireError) || error.offset === 0 || frame.length < 8) throw error;
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const apiKey = view.getInt16(4);
    const version = view.getInt16(6);
    const api = protocol.apis.get(apiKey);
    const assumed = api === undefined ? `api key ${apiKey}` : `${api.name}Request v${version} (api key ${apiKey})`;
    throw new CliError(
      `${errorText(error)} (read as a request frame: its header says ${assumed}; ` +
        "a response frame has no api key in its header: give --api-key <key> --api-version <version> of the request it answers)",
    );
  }
}

/** The API `text` names: an api key number, or an API name (`Metadata`, `MetadataRequest`, any case). */
function findApi(protocol: Protocol, text: string): ApiCodecs {
  const trimmed = text.trim();
  if (/^\d{1,5}$/.test(trimmed)) {
    const api = protocol.apis.get(Number(trimmed));
    if (api === undefined) throw new CliError(`no API with api key ${trimmed} in this schema set`);
    return api;
  }
  const wanted = trimmed.replace(/(Request|Response)$/i, "").toLowerCase();
  for (const api of protocol.apis.values()) if (api.name.toLowerCase() === wanted) return api;
  const names = [...protocol.apis.values()].map((a) => a.name);
  const suggestions = closestNames(trimmed, names);
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(", ")}?` : "";
  throw new CliError(`--api-key ${JSON.stringify(text)}: not an api key or API name${hint}`);
}

/** Registers `decode-frame` on the program. */
export function registerDecodeFrame(program: Command): void {
  withDecodeFlags(
    withSchemaSet(
      program
        .command("decode-frame")
        .description(
          "decode a size-prefixed request or response frame (size, header, body) and print header and body as Kafka JSON",
        )
        .argument("[hex]", "the whole frame as hex, size prefix included; read from stdin when omitted"),
    ),
  )
    .option("--api-key <key>", "a response frame: the api key (number or API name, e.g. Metadata) it answers")
    .option("--api-version <version>", "a response frame: the api version of the request it answers")
    .option("--jsonl", "one hex frame per input line; print one compact JSON object per line")
    .addHelpText(
      "after",
      "\nA request frame names its api key and version in its header; a response frame does not, so give\n" +
        "--api-key and --api-version for one (without them, the frame is read as a request). Needs a schema set with the RequestHeader and\n" +
        "ResponseHeader schemas (Kafka's clients/src/main/resources/common/message has them).\n\n" +
        "Examples:\n  kafka-wire decode-frame 0000000e00030004000000010002686900000000 --kafka 4.1.0\n" +
        "  kafka-wire decode-frame <hex> --api-key Metadata --api-version 12 --kafka 4.1.0\n" +
        SCHEMA_SET_HELP,
    )
    .action(async (hex: string | undefined, flags: FrameFlags, command: Command) => {
      await decodeFrameCommand(contextOf(command).io, hex, flags);
    });
}
