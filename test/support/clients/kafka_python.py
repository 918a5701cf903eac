"""The scenario of harness.ts (steps: scenario.py) with Debian's python3-kafka (kafka-python
2.0.2), run by Debian's /usr/bin/python3. Argument: the Scenario as JSON; prints the DriverResult
as one JSON line. Codecs: none and gzip (snappy, lz4 and zstd need Python modules Debian packages
apart: python3-snappy, python3-lz4, python3-zstandard). kafka-python 2.0.2 has no transactions.
Heartbeats run in kafka-python's own thread."""

import json
import sys

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic
from kafka.structs import OffsetAndMetadata

import scenario
from scenario import WAIT_S, Run

s = json.loads(sys.argv[1])
bootstrap = s["bootstrap"].split(",")


def text(b):
    return "" if b is None else b.decode()


class Member(scenario.Member):
    """A group member: reads, records and commits each record as it goes."""

    def __init__(self, client, group_id, topic):
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
        client.opened.append(self.consumer)
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


class Client:
    def __init__(self):
        self.opened = []
        self.producers = {}

    def member(self, group_id, topic):
        return Member(self, group_id, topic)

    def send(self, messages, codec="none"):
        if codec not in self.producers:
            self.producers[codec] = KafkaProducer(
                bootstrap_servers=bootstrap,
                acks="all",
                compression_type=None if codec == "none" else codec,
                # send() waits this long for metadata (default 60 s): the step's bound instead.
                max_block_ms=int(WAIT_S * 1000),
            )
            self.opened.append(self.producers[codec])
        p = self.producers[codec]
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

    def admin(self):
        admin = KafkaAdminClient(bootstrap_servers=bootstrap)
        self.opened.append(admin)
        admin.create_topics([NewTopic(s["adminTopic"], 2, 1)])
        described = admin.describe_topics([s["adminTopic"]])
        if len(described) != 1 or len(described[0]["partitions"]) != 2:
            raise AssertionError(f"metadata of {s['adminTopic']}: {described}")


# Each step's own bound: kafka-python 2.0.2's poll() blocks without a bound while it looks for a
# coordinator it cannot reach (e.g. without the metadata Kafka 4 refuses it), so a step is
# interrupted by SIGALRM. A little more than the longest wait inside a step (WAIT_S).
Run(s, Client(), step_s=int(WAIT_S) + 5).run()
