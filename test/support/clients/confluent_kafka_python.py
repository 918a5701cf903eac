"""The scenario of harness.ts with Debian's python3-confluent-kafka (1.7.0, on Debian's librdkafka
2.0.2), run by Debian's /usr/bin/python3. Argument: the Scenario as JSON; prints the DriverResult
as one JSON line. Codecs: all five (librdkafka's compression.type, one producer per codec).
Transactions: init/begin/commit/abort_transaction and send_offsets_to_transaction with the
consumer's group metadata. Group members are polled in turn from this one thread (librdkafka
serves their rebalances inside poll)."""

import json
import os
import signal
import sys
import time
import traceback

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

s = json.loads(sys.argv[1])
WAIT_S = 30.0
started = time.monotonic()
steps = {}
result = {"steps": steps}
opened = []
base = {"bootstrap.servers": s["bootstrap"]}


running = []


def step(name, f):
    running.append(name)
    try:
        f()
        steps[name] = {"ok": True}
    except Exception:  # the client's error, reported as the step's
        steps[name] = {"ok": False, "error": traceback.format_exc()}
    finally:
        running.pop()


def out_of_time(_signum, _frame):
    """The driver's own bound: reports what it has (the step it was in as failed) and exits."""
    for name in running:
        steps[name] = {"ok": False, "error": f"the driver's time-out ({s['timeoutMs']} ms) ended this step"}
    print(json.dumps(result), flush=True)
    os._exit(0)


signal.signal(signal.SIGALRM, out_of_time)
signal.alarm(max(1, s["timeoutMs"] // 1000))


def text(b):
    return "" if b is None else (b.decode() if isinstance(b, bytes) else b)


def from_msg(msg):
    return {
        "key": text(msg.key()),
        "value": text(msg.value()),
        "headers": [[k, text(v)] for k, v in (msg.headers() or [])],
    }


class Member:
    """A group member: reads, records and commits each record as it goes."""

    def __init__(self, group_id, topic, extra=None):
        config = {
            **base,
            "group.id": group_id,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 100,
            "session.timeout.ms": 10000,
            "heartbeat.interval.ms": 300,
            **(extra or {}),
        }
        self.consumer = Consumer(config)
        opened.append(self.consumer)
        self.consumer.subscribe([topic])
        self.got = []
        self.last = {}
        self.closed = False

    def poll(self, commit=True):
        if self.closed:
            return None
        msg = self.consumer.poll(0.05)
        if msg is None or msg.error() is not None:
            return None
        self.got.append(from_msg(msg))
        self.last[msg.partition()] = msg.offset()
        if commit:
            self.consumer.commit(message=msg, asynchronous=False)
        return msg

    def held(self):
        return 0 if self.closed else len(self.consumer.assignment())

    def close(self):
        self.closed = True
        self.consumer.close()


def pump(members, done, what):
    end = time.monotonic() + WAIT_S
    while not done():
        if time.monotonic() > end:
            raise TimeoutError(f"not within {WAIT_S} s: {what()}")
        for m in members:
            m.poll()


producers = {}


def send(messages, codec="none", topic=None):
    if codec not in producers:
        producers[codec] = Producer(
            {**base, "enable.idempotence": True, "compression.type": codec, "linger.ms": 5}
        )
    p = producers[codec]
    errors = []
    for m in messages:
        p.produce(
            topic or s["topic"],
            key=m["key"],
            value=m["value"],
            headers=[(k, v.encode()) for k, v in m["headers"]],
            on_delivery=lambda err, _msg: errors.append(str(err)) if err is not None else None,
        )
    if p.flush(WAIT_S) != 0:
        raise TimeoutError(f"{codec}: records not delivered within {WAIT_S} s")
    if errors:
        raise KafkaException(f"{codec}: {errors[0]}")


def admin_step():
    admin = AdminClient(base)
    for future in admin.create_topics([NewTopic(s["adminTopic"], 2, 1)]).values():
        future.result(WAIT_S)
    topic = admin.list_topics(s["adminTopic"], timeout=WAIT_S).topics.get(s["adminTopic"])
    if topic is None or len(topic.partitions) != 2:
        raise AssertionError(f"metadata of {s['adminTopic']}: {topic}")


def group_step():
    m1 = Member(s["groupId"], s["topic"])
    m2 = Member(s["groupId"], s["topic"])
    pump(
        [m1, m2],
        lambda: m1.held() > 0 and m2.held() > 0 and m1.held() + m2.held() == s["partitions"],
        lambda: f"the members hold {m1.held()} and {m2.held()} partitions",
    )

    def produce_phase1():
        for p in s["phase1"]:
            send(p["messages"], p["codec"])

    step("produce", produce_phase1)
    if not steps["produce"]["ok"]:
        raise RuntimeError("phase 1 was not produced")
    phase1 = sum(len(p["messages"]) for p in s["phase1"])
    pump(
        [m1, m2],
        lambda: len({json.dumps(m) for m in m1.got + m2.got}) == phase1,
        lambda: f"the members read {len(m1.got)} and {len(m2.got)} of phase 1's {phase1}",
    )
    result["group"] = {"phase1": [list(m1.got), list(m2.got)], "phase2": []}
    m2.close()
    pump([m1], lambda: m1.held() == s["partitions"], lambda: f"member 1 holds {m1.held()} partitions")
    mark = len(m1.got)
    send(s["phase2"])
    pump(
        [m1],
        lambda: len(m1.got) - mark >= len(s["phase2"]),
        lambda: f"member 1 read {len(m1.got) - mark} of phase 2's {len(s['phase2'])}",
    )
    result["group"]["phase2"] = m1.got[mark:]
    m1.close()


def resume_step():
    send(s["phase3"])
    m3 = Member(s["groupId"], s["topic"])
    pump([m3], lambda: len(m3.got) >= len(s["phase3"]), lambda: f"the new member read {len(m3.got)}")
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        m3.poll()
    result["resume"] = {"consumed": list(m3.got)}
    m3.close()


def transactions(txn):
    transactional = Producer({**base, "transactional.id": txn["transactionalId"], "linger.ms": 5})
    want = len(txn["committed1"]) + len(txn["committed3"])

    def txn_step():
        transactional.init_transactions(WAIT_S)
        for batch, commit in ((txn["committed1"], True), (txn["aborted"], False), (txn["committed3"], True)):
            transactional.begin_transaction()
            for m in batch:
                transactional.produce(
                    txn["topic"], key=m["key"], value=m["value"], headers=[(k, v.encode()) for k, v in m["headers"]]
                )
            if commit:
                transactional.commit_transaction(WAIT_S)
            else:
                transactional.abort_transaction(WAIT_S)
        reader = Member(txn["groupId"] + "-reader", txn["topic"], {"isolation.level": "read_committed"})
        pump([reader], lambda: len(reader.got) >= want, lambda: f"read {len(reader.got)} of {want} committed records")
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            reader.poll()
        result["txn"] = {"readCommitted": list(reader.got)}
        reader.close()

    def ctp_step():
        if not steps.get("transactions", {}).get("ok"):
            raise RuntimeError("not run: its input comes from the transactions step, which failed")
        c = Member(txn["groupId"], txn["topic"], {"isolation.level": "read_committed"})
        end = time.monotonic() + WAIT_S
        done = 0
        while done < want:
            if time.monotonic() > end:
                raise TimeoutError(f"transformed {done} of {want} records in {WAIT_S} s")
            msg = c.poll(commit=False)
            if msg is None:
                continue
            m = from_msg(msg)
            transactional.begin_transaction()
            transactional.produce(
                txn["outTopic"],
                key=m["key"],
                value=m["value"].upper(),
                headers=[(k, v.encode()) for k, v in m["headers"]] + [("transformed", b"yes")],
            )
            transactional.send_offsets_to_transaction(
                [TopicPartition(txn["topic"], msg.partition(), msg.offset() + 1)],
                c.consumer.consumer_group_metadata(),
                WAIT_S,
            )
            transactional.commit_transaction(WAIT_S)
            done += 1
        parts = [TopicPartition(txn["topic"], p) for p in (0, 1)]
        committed = c.consumer.committed(parts, WAIT_S)
        ends = [c.consumer.get_watermark_offsets(tp, WAIT_S)[1] for tp in parts]
        last = dict(c.last)
        c.close()
        reader = Member(txn["groupId"] + "-output-reader", txn["outTopic"], {"isolation.level": "read_committed"})
        pump([reader], lambda: len(reader.got) >= want, lambda: f"read {len(reader.got)} of {want} transformed")
        reader.close()
        result["ctp"] = {
            "output": list(reader.got),
            "committed": [{"partition": tp.partition, "offset": tp.offset} for tp in committed],
            "lastRecords": [{"partition": p, "offset": o} for p, o in last.items()],
            "endOffsets": [{"partition": p, "offset": o} for p, o in zip((0, 1), ends)],
        }

    step("transactions", txn_step)
    step("consumeTransformProduce", ctp_step)


try:
    step("admin", admin_step)
    step("group", group_step)
    if "produce" not in steps:  # the group step failed before it: produce on its own
        step("produce", lambda: [send(p["messages"], p["codec"]) for p in s["phase1"]])
    step("resume", resume_step)
    if s.get("txn"):
        transactions(s["txn"])
finally:
    for c in opened:
        try:
            c.close()
        except Exception:  # already closed
            pass
print(json.dumps(result), flush=True)
