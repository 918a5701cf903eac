/**
 * SASL authentication (SaslHandshake v1, SaslAuthenticate v0–2) with users given at start, so
 * that applications can test their auth configuration: PLAIN (RFC 4616) and SCRAM-SHA-256 /
 * SCRAM-SHA-512 (RFC 5802, RFC 7677; Kafka's `ScramSaslServer`, 4096 iterations). With SASL
 * on, a connection may send only ApiVersions, SaslHandshake and SaslAuthenticate until it has
 * authenticated; anything else closes it, as Kafka's SASL listener does. A failed
 * authentication is answered with SASL_AUTHENTICATION_FAILED, then the connection is closed.
 *
 * SaslHandshake v0 (tokens sent without SaslAuthenticate's framing) is not offered.
 */

import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import type { Cluster } from "../cluster.js";
import { errorCode } from "../errors.js";
import type { Connection } from "../types.js";

export type SaslMechanism = "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512";

export interface SaslOptions {
  /** Username → password. */
  readonly users: Readonly<Record<string, string>>;
  /** Default: all three. */
  readonly mechanisms?: readonly SaslMechanism[];
}

/** The session keys of a connection's SASL state. */
const STATE = "sasl";
/** Set on a connection whose response is its last (see cluster.ts). */
export const CLOSE_AFTER_RESPONSE = "close-after-response";

type State =
  | { step: "handshake" }
  | { step: "authenticate"; mechanism: SaslMechanism }
  | {
      step: "scram-final";
      mechanism: SaslMechanism;
      user: string;
      nonce: string;
      clientFirstBare: string;
      serverFirst: string;
      salted: Buffer;
    }
  | { step: "done"; user: string };

/** Requests a connection may send before it has authenticated. */
const BEFORE_AUTH = new Set([17, 18, 36]);

/** True when `connection` may send a request of `apiKey` now. */
export function saslAllows(connection: Connection, apiKey: number): boolean {
  const state = connection.session.get(STATE) as State | undefined;
  return state?.step === "done" || BEFORE_AUTH.has(apiKey);
}

const ITERATIONS = 4096;
const text = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8");

export function registerSaslHandlers(cluster: Cluster, options: SaslOptions): void {
  const mechanisms = options.mechanisms ?? ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"];
  const users = new Map(Object.entries(options.users));
  // Each user's salt, fixed for the cluster's life (Kafka stores one per credential).
  const salts = new Map<string, Buffer>();
  const saltOf = (user: string) => {
    let salt = salts.get(user);
    if (salt === undefined) salts.set(user, (salt = randomBytes(16)));
    return salt;
  };
  const state = (c: Connection) => (c.session.get(STATE) as State | undefined) ?? { step: "handshake" };

  cluster.handlers.register(
    17,
    (req, { connection }) => {
      if (state(connection).step !== "handshake")
        return { errorCode: errorCode("ILLEGAL_SASL_STATE"), mechanisms: [...mechanisms] };
      if (!(mechanisms as readonly string[]).includes(req.mechanism)) {
        return { errorCode: errorCode("UNSUPPORTED_SASL_MECHANISM"), mechanisms: [...mechanisms] };
      }
      connection.session.set(STATE, { step: "authenticate", mechanism: req.mechanism as SaslMechanism });
      return { errorCode: 0, mechanisms: [...mechanisms] };
    },
    { minVersion: 1 },
  );

  cluster.handlers.register(36, (req, { connection }) => {
    const s = state(connection);
    const ok = (authBytes: Uint8Array = new Uint8Array(0)) => ({
      errorCode: 0,
      errorMessage: null,
      authBytes,
      sessionLifetimeMs: 0n,
    });
    const failed = (message: string) => {
      connection.session.set(CLOSE_AFTER_RESPONSE, true);
      return {
        errorCode: errorCode("SASL_AUTHENTICATION_FAILED"),
        errorMessage: message,
        authBytes: new Uint8Array(0),
        sessionLifetimeMs: 0n,
      };
    };
    if (s.step === "authenticate" && s.mechanism === "PLAIN") {
      // [authzid] NUL authcid NUL passwd
      const parts = text(req.authBytes).split("\0");
      if (parts.length !== 3) return failed("Invalid SASL/PLAIN response: expected 3 tokens");
      const [authzid, user, password] = parts as [string, string, string];
      if (authzid !== "" && authzid !== user)
        return failed("Authentication failed: Client requested an authorization id that is different from username");
      if (!equal(users.get(user), password)) return failed("Authentication failed: Invalid username or password");
      connection.session.set(STATE, { step: "done", user });
      return ok();
    }
    if (s.step === "authenticate") {
      // client-first-message: gs2-header "n,," then "n=user,r=nonce"
      const message = text(req.authBytes);
      const m = /^n,(?:a=[^,]*)?,(n=([^,]*),r=([^,]+)(?:,.*)?)$/.exec(message);
      if (m === null) return failed("Authentication failed: Invalid SCRAM client first message");
      const user = m[2]!.replace(/=2C/g, ",").replace(/=3D/g, "=");
      const password = users.get(user);
      const hash = s.mechanism === "SCRAM-SHA-256" ? "sha256" : "sha512";
      const salt = saltOf(user);
      // An unknown user gets a server-first message all the same (and fails at the proof), as Kafka does.
      const salted = pbkdf2Sync(
        password ?? randomBytes(16).toString("hex"),
        salt,
        ITERATIONS,
        hash === "sha256" ? 32 : 64,
        hash,
      );
      const nonce = m[3]! + randomBytes(18).toString("base64");
      const serverFirst = `r=${nonce},s=${salt.toString("base64")},i=${ITERATIONS}`;
      connection.session.set(STATE, {
        step: "scram-final",
        mechanism: s.mechanism,
        user: password === undefined ? "" : user,
        nonce,
        clientFirstBare: m[1]!,
        serverFirst,
        salted,
      });
      return ok(Buffer.from(serverFirst));
    }
    if (s.step === "scram-final") {
      const message = text(req.authBytes);
      const m = /^(c=[^,]*,r=([^,]+)(?:,.*)?),p=([^,]+)$/.exec(message);
      if (m === null || m[2] !== s.nonce) return failed("Authentication failed: Invalid SCRAM client final message");
      const hash = s.mechanism === "SCRAM-SHA-256" ? "sha256" : "sha512";
      const hmac = (key: Buffer, data: string) => createHmac(hash, key).update(data).digest();
      const authMessage = `${s.clientFirstBare},${s.serverFirst},${m[1]}`;
      const clientKey = hmac(s.salted, "Client Key");
      const storedKey = createHash(hash).update(clientKey).digest();
      const signature = hmac(storedKey, authMessage);
      const proof = Buffer.from(m[3]!, "base64");
      if (s.user === "" || proof.length !== signature.length)
        return failed("Authentication failed: Invalid user credentials");
      const recovered = Buffer.alloc(proof.length);
      for (let i = 0; i < proof.length; i++) recovered[i] = proof[i]! ^ signature[i]!;
      if (!timingSafeEqual(createHash(hash).update(recovered).digest(), storedKey)) {
        return failed("Authentication failed: Invalid user credentials");
      }
      const serverSignature = hmac(hmac(s.salted, "Server Key"), authMessage);
      connection.session.set(STATE, { step: "done", user: s.user });
      return ok(Buffer.from(`v=${serverSignature.toString("base64")}`));
    }
    return {
      errorCode: errorCode("ILLEGAL_SASL_STATE"),
      errorMessage: "SaslAuthenticate before SaslHandshake",
      authBytes: new Uint8Array(0),
      sessionLifetimeMs: 0n,
    };
  });
}

/** Constant-time string comparison (false when `expected` is undefined). */
function equal(expected: string | undefined, given: string): boolean {
  if (expected === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
