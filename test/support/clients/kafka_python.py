"""The scenario of harness.ts with Debian's python3-kafka (kafka-python 2.0.2), run by Debian's
/usr/bin/python3. Argument: the Scenario as JSON; prints the DriverResult as one JSON line.
Codecs: none and gzip (snappy, lz4 and zstd need Python modules Debian packages apart:
python3-snappy, python3-lz4, python3-zstandard). kafka-python 2.0.2 has no transactions. Group
members are polled in turn from this one thread (heartbeats run in kafka-python's own thread)."""

import json
import os
import signal
import sys
import time
import traceback

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic
from kafka.structs import OffsetAndMetadata

s = json.loads(sys.argv[1])
WAIT_S = 30.0
steps = {}
result = {"steps": steps}
opened = []
bootstrap = s["bootstrap"].split(",")


running = []
# Each step's own bound: kafka-python 2.0.2's poll() blocks without a bound while it looks for a
# coordinator it cannot reach (e.g. without the metadata Kafka 4 refuses it), so a step is
# interrupted by SIGALRM. A little more than the longest wait inside a step (WAIT_S).
STEP_S = int(WAIT_S) + 5
DEADLINE = time.monotonic() + s["timeoutMs"] / 1000
# The deadlines of the running steps (a step may run inside another).
step_deadlines = []


class StepTimeout(BaseException):
    """Raised in the step that outlived its bound; a BaseException, so that kafka-python's own
    `except Exception` handlers let it through."""


def arm():
    """Sets the alarm for the innermost running step (or the driver's deadline)."""
    end = min([DEADLINE, *step_deadlines[-1:]])
    signal.setitimer(signal.ITIMER_REAL, max(0.01, end - time.monotonic()))


def step(name, f):
    running.append(name)
    step_deadlines.append(min(DEADLINE, time.monotonic() + STEP_S))
    arm()
    try:
        f()
        steps[name] = {"ok": True}
    except (Exception, StepTimeout):  # the client's error, reported as the step's
        steps[name] = {"ok": False, "error": traceback.format_exc()}
    finally:
        running.pop()
        step_deadlines.pop()
        arm()


def on_alarm(_signum, _frame):
    if time.monotonic() >= DEADLINE - 0.01:
        out_of_time()
    if step_deadlines and time.monotonic() >= step_deadlines[-1] - 0.01:
        raise StepTimeout(f"the step's bound ({STEP_S} s) ended it")
    arm()


def out_of_time():
    """The driver's own bound: reports what it has (the steps it was in as failed) and exits."""
    for name in running:
        steps[name] = {"ok": False, "error": f"the driver's time-out ({s['timeoutMs']} ms) ended this step"}
    print(json.dumps(result), flush=True)
    os._exit(0)


signal.signal(signal.SIGALRM, on_alarm)
arm()


def text(b):
    return "" if b is None else b.decode()


class Member:
    """A group member: reads, records and commits each record as it goes."""

    def __init__(self, group_id, topic):
        self.consumer = KafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=group_id,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            fetch_max_wait_ms=100,
            session_timeout_ms=10000,
            heartbeat_interval_ms=300,
            request_timeout_ms=15000,
        )
        opened.append(self.consumer)
        self.consumer.subscribe([topic])
        self.got = []
        self.closed = False

    def poll(self):
        if self.closed:
            return
        for tp, records in self.consumer.poll(timeout_ms=50).items():
            for r in records:
                self.got.append(
                    {"key": text(r.key), "value": text(r.value), "headers": [[k, text(v)] for k, v in r.headers]}
                )
            self.consumer.commit({tp: OffsetAndMetadata(records[-1].offset + 1, None)})

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


def send(messages, codec="none"):
    if codec not in producers:
        producers[codec] = KafkaProducer(
            bootstrap_servers=bootstrap,
            acks="all",
            compression_type=None if codec == "none" else codec,
            # send() waits this long for metadata (default 60 s): the step's bound instead.
            max_block_ms=int(WAIT_S * 1000),
        )
        opened.append(producers[codec])
    p = producers[codec]
    futures = [
        p.send(
            s["topic"],
            key=m["key"].encode(),
            value=m["value"].encode(),
            headers=[(k, v.encode()) for k, v in m["headers"]],
        )
        for m in messages
    ]
    p.flush(WAIT_S)
    for f in futures:
        f.get(WAIT_S)


def admin_step():
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    opened.append(admin)
    admin.create_topics([NewTopic(s["adminTopic"], 2, 1)])
    described = admin.describe_topics([s["adminTopic"]])
    if len(described) != 1 or len(described[0]["partitions"]) != 2:
        raise AssertionError(f"metadata of {s['adminTopic']}: {described}")


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


try:
    step("admin", admin_step)
    step("group", group_step)
    if "produce" not in steps:  # the group step failed before it: produce on its own
        step("produce", lambda: [send(p["messages"], p["codec"]) for p in s["phase1"]])
    step("resume", resume_step)
finally:
    # Closing a client that never reached its coordinator can block as well: 5 s, then the
    # result as it stands.
    DEADLINE = min(DEADLINE, time.monotonic() + 5)
    arm()
    for c in opened:
        try:
            c.close()
        except Exception:  # already closed
            pass
print(json.dumps(result), flush=True)
