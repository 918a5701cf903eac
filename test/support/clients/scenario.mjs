/**
 * The scenario of harness.ts, step by step, for the drivers that run in a Node.js process of
 * their own (kafka-javascript.mjs, platformatic.mjs): the order of the steps, what each waits for
 * and reports, and the DriverResult printed as one JSON line. A driver gives only its client's
 * calls (a {@link Client}); what the steps check is here, once.
 *
 * A Client:
 * - `admin()`: creates `s.adminTopic` (2 partitions) and checks the client's metadata of it.
 * - `member(groupId, topic)`: a group member reading from the earliest offset (or its group's
 *   committed ones) and committing each record as it goes: `{ got: Message[], held(): number,
 *   close() }` (`held`: how many partitions it is assigned).
 * - `send(messages, codec = "none")`: produces to `s.topic`, acknowledged.
 * - `transactions` (clients with them): `run(topic, messages, commit)` (one transaction),
 *   `reader(groupId, topic)` (a read_committed member: `{ got, close() }`),
 *   `transformAll(txn, count)` (consume-transform-produce of `count` input records, each in a
 *   transaction with its offset: resolves with the last offset read per partition, a Map),
 *   `offsets(groupId, topic)` (the group's committed offsets and the topic's end offsets).
 * - `close()`: every client it opened.
 */

export const WAIT_MS = 30_000;

/** Resolves when `done()` holds, polling every 20 ms; rejects with `what()` after {@link WAIT_MS}. */
export async function until(done, what) {
  const end = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not within ${WAIT_MS} ms: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The transformation of consume-transform-produce (harness.ts's `transform`). */
export const transform = (m) => ({
  key: m.key,
  value: m.value.toUpperCase(),
  headers: [...m.headers, ["transformed", "yes"]],
});

/** Runs the scenario `s` with `client` within `s.timeoutMs`, prints the DriverResult and exits. */
export async function runScenario(name, s, client) {
  const deadline = setTimeout(() => {
    console.error(`${name} driver: not done within ${s.timeoutMs} ms`);
    process.exit(2);
  }, s.timeoutMs);
  const steps = {};
  const result = { steps };
  const step = async (stepName, f) => {
    try {
      await f();
      steps[stepName] = { ok: true };
    } catch (e) {
      steps[stepName] = { ok: false, error: e?.stack ?? String(e) };
    }
  };

  try {
    await step("admin", () => client.admin());

    await step("group", async () => {
      const m1 = await client.member(s.groupId, s.topic);
      const m2 = await client.member(s.groupId, s.topic);
      await until(
        () => m1.held() > 0 && m2.held() > 0 && m1.held() + m2.held() === s.partitions,
        () => `the members hold ${m1.held()} and ${m2.held()} partitions`,
      );
      await step("produce", async () => {
        for (const { codec, messages } of s.phase1) await client.send(messages, codec);
      });
      if (!steps.produce.ok) throw new Error("phase 1 was not produced");
      const phase1 = s.phase1.reduce((n, p) => n + p.messages.length, 0);
      await until(
        () => new Set([...m1.got, ...m2.got].map((m) => JSON.stringify(m))).size === phase1,
        () => `the members read ${m1.got.length} and ${m2.got.length} of phase 1's ${phase1}`,
      );
      result.group = { phase1: [[...m1.got], [...m2.got]], phase2: [] };
      await m2.close();
      await until(
        () => m1.held() === s.partitions,
        () => `member 1 holds ${m1.held()} partitions after member 2 left`,
      );
      const mark = m1.got.length;
      await client.send(s.phase2);
      await until(
        () => m1.got.length - mark >= s.phase2.length,
        () => `member 1 read ${m1.got.length - mark} of phase 2's ${s.phase2.length}`,
      );
      result.group.phase2 = m1.got.slice(mark);
      await m1.close();
    });

    await step("resume", async () => {
      await client.send(s.phase3);
      const m3 = await client.member(s.groupId, s.topic);
      await until(
        () => m3.got.length >= s.phase3.length,
        () => `the new member read ${m3.got.length} of phase 3's ${s.phase3.length}`,
      );
      // A record of phases 1 or 2 read again would come later: give a straggler time.
      await new Promise((r) => setTimeout(r, 300));
      result.resume = { consumed: [...m3.got] };
      await m3.close();
    });

    if (s.txn !== undefined) await transactions(s.txn, client.transactions, step, steps, result);
  } finally {
    await client.close();
    clearTimeout(deadline);
  }
  console.log(JSON.stringify(result));
  process.exit(0);
}

/** The transactions and consume-transform-produce steps. */
async function transactions(txn, t, step, steps, result) {
  await step("transactions", async () => {
    for (const [batch, commit] of [
      [txn.committed1, true],
      [txn.aborted, false],
      [txn.committed3, true],
    ]) {
      await t.run(txn.topic, batch, commit);
    }
    const r = await t.reader(`${txn.groupId}-reader`, txn.topic);
    const want = txn.committed1.length + txn.committed3.length;
    await until(
      () => r.got.length >= want,
      () => `read ${r.got.length} of ${want} committed records`,
    );
    // Records of the aborted transaction would come before transaction 3's: give a straggler time.
    await new Promise((res) => setTimeout(res, 300));
    result.txn = { readCommitted: [...r.got] };
    await r.close();
  });

  await step("consumeTransformProduce", async () => {
    if (!steps.transactions?.ok) throw new Error("not run: its input comes from the transactions step, which failed");
    const input = txn.committed1.length + txn.committed3.length;
    const lastRecords = await t.transformAll(txn, input);
    const r = await t.reader(`${txn.groupId}-output-reader`, txn.outTopic);
    await until(
      () => r.got.length >= input,
      () => `read ${r.got.length} of ${input} transformed records`,
    );
    await r.close();
    const { committed, endOffsets } = await t.offsets(txn.groupId, txn.topic);
    result.ctp = {
      output: [...r.got],
      committed,
      lastRecords: [...lastRecords].map(([partition, offset]) => ({ partition, offset })),
      endOffsets,
    };
  });
}
