"""The scenario of harness.ts with Debian's python3-confluent-kafka (1.7.0, on Debian's librdkafka
2.0.2), run by Debian's /usr/bin/python3. Argument: the Scenario as JSON; prints the DriverResult
as one JSON line. Codecs: all five (librdkafka's compression.type, one producer per codec).
Transactions: init/begin/commit/abort_transaction and send_offsets_to_transaction with the
consumer's group metadata. Group members are polled in turn from this one thread (librdkafka
serves their rebalances inside poll)."""

import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import scenario
from scenario import WAIT_S, Run

s = json.loads(sys.argv[1])
base = {"bootstrap.servers": s["bootstrap"]}


def text(b):
    return "" if b is None else (b.decode() if isinstance(b, bytes) else b)


def from_msg(msg):
    return {
        "key": text(msg.key()),
        "value": text(msg.value()),
        "headers": [[k, text(v)] for k, v in (msg.headers() or [])],
    }


class Member(scenario.Member):
    """A group member: reads, records and commits each record as it goes."""

    def __init__(self, client, group_id, topic, extra=None):
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
        client.opened.append(self.consumer)
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


class Client:
    def __init__(self):
        self.opened = []
        self.producers = {}

    def member(self, group_id, topic, extra=None):
        return Member(self, group_id, topic, extra)

    def send(self, messages, codec="none"):
        if codec not in self.producers:
            self.producers[codec] = Producer(
                {**base, "enable.idempotence": True, "compression.type": codec, "linger.ms": 5}
            )
        p = self.producers[codec]
        errors = []
        for m in messages:
            p.produce(
                s["topic"],
                key=m["key"],
                value=m["value"],
                headers=[(k, v.encode()) for k, v in m["headers"]],
                on_delivery=lambda err, _msg: errors.append(str(err)) if err is not None else None,
            )
        if p.flush(WAIT_S) != 0:
            raise TimeoutError(f"{codec}: records not delivered within {WAIT_S} s")
        if errors:
            raise KafkaException(f"{codec}: {errors[0]}")

    def admin(self):
        admin = AdminClient(base)
        for future in admin.create_topics([NewTopic(s["adminTopic"], 2, 1)]).values():
            future.result(WAIT_S)
        topic = admin.list_topics(s["adminTopic"], timeout=WAIT_S).topics.get(s["adminTopic"])
        if topic is None or len(topic.partitions) != 2:
            raise AssertionError(f"metadata of {s['adminTopic']}: {topic}")

    def transactions(self, run, txn):
        transactional = Producer({**base, "transactional.id": txn["transactionalId"], "linger.ms": 5})
        want = len(txn["committed1"]) + len(txn["committed3"])
        read_committed = {"isolation.level": "read_committed"}

        def txn_step():
            transactional.init_transactions(WAIT_S)
            for batch, commit in ((txn["committed1"], True), (txn["aborted"], False), (txn["committed3"], True)):
                transactional.begin_transaction()
                for m in batch:
                    transactional.produce(
                        txn["topic"],
                        key=m["key"],
                        value=m["value"],
                        headers=[(k, v.encode()) for k, v in m["headers"]],
                    )
                if commit:
                    transactional.commit_transaction(WAIT_S)
                else:
                    transactional.abort_transaction(WAIT_S)
            reader = self.member(txn["groupId"] + "-reader", txn["topic"], read_committed)
            run.pump(
                [reader], lambda: len(reader.got) >= want, lambda: f"read {len(reader.got)} of {want} committed records"
            )
            run.linger(reader)
            run.result["txn"] = {"readCommitted": list(reader.got)}
            reader.close()

        def ctp_step():
            if not run.steps.get("transactions", {}).get("ok"):
                raise RuntimeError("not run: its input comes from the transactions step, which failed")
            c = self.member(txn["groupId"], txn["topic"], read_committed)
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
            reader = self.member(txn["groupId"] + "-output-reader", txn["outTopic"], read_committed)
            run.pump([reader], lambda: len(reader.got) >= want, lambda: f"read {len(reader.got)} of {want} transformed")
            reader.close()
            run.result["ctp"] = {
                "output": list(reader.got),
                "committed": [{"partition": tp.partition, "offset": tp.offset} for tp in committed],
                "lastRecords": [{"partition": p, "offset": o} for p, o in last.items()],
                "endOffsets": [{"partition": p, "offset": o} for p, o in zip((0, 1), ends)],
            }

        run.step("transactions", txn_step)
        run.step("consumeTransformProduce", ctp_step)


Run(s, Client()).run()
