/**
 * Message bytes worked out by hand, shared by the tests that check a built package against them
 * (test/package.test.ts, test/runtimes.test.ts).
 */

/** `hex` without the spaces that group it by field. */
const bare = (hex: string): string => hex.replace(/\s+/g, "");

/**
 * StreamsGroupHeartbeatResponse v0 of `create({ memberId, memberEpoch: 5, heartbeatIntervalMs: 5000 })`,
 * with `memberId` given as its compact string bytes (unsigned varint length+1, then the UTF-8
 * bytes), worked out by hand: throttleTimeMs 0 (int32), errorCode 0 (int16), errorMessage null
 * (compact nullable string `00`), memberId, memberEpoch 5, currentAssignmentEpoch 0,
 * heartbeatIntervalMs 5000 (`1388`), acceptableRecoveryLag 0, taskOffsetIntervalMs 0, five null
 * compact arrays (`00` each), no tagged fields (`00`). memberId starts at byte 7, its UTF-8 at 8
 * when the length takes one byte.
 */
export function heartbeatResponseHex(memberIdField: string): string {
  return bare(`00000000 0000 00 ${memberIdField} 00000005 00000000 00001388 00000000 00000000 00 00 00 00 00 00`);
}

/** {@link heartbeatResponseHex} with memberId "m" (length+1 = 2, then `6d`). */
export const RESPONSE_HEX = heartbeatResponseHex("02 6d");
