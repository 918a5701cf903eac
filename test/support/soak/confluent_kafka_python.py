"""Debian's python3-confluent-kafka (1.7.0, on Debian's librdkafka 2.0.2) in the soak
(test/broker-soak.test.ts), run by Debian's /usr/bin/python3; the argument and the JSON lines of
peer.mjs. Role `produce`: an idempotent producer (enable.idempotence, acks all) sending `batch`
numbered records every `intervalMs` until "stop" on stdin (or `max`); emits {"acked": ids} when
every record of a batch is delivered and {"failed": ids, "error"} otherwise (those ids are never
sent again)."""

import json
import sys
import threading
import time

from confluent_kafka import Producer

args = json.loads(sys.argv[-1])
if args["role"] != "produce":
    raise SystemExit(f"no role {args['role']}")
stop = threading.Event()


def watch_stdin():
    for line in sys.stdin:
        if line.strip() == "stop":
            break
    stop.set()


def emit(event):
    print(json.dumps(event), flush=True)


threading.Thread(target=watch_stdin, daemon=True).start()
deadline = time.monotonic() + args["timeoutMs"] / 1000
producer = Producer(
    {
        "bootstrap.servers": args["bootstrap"],
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 5,
        # A record not delivered within this is reported failed (librdkafka retries until then).
        "message.timeout.ms": 30000,
        "retry.backoff.ms": 50,
    }
)
emit({"ready": True})
n = 0
while not stop.is_set() and n < args["max"] and time.monotonic() < deadline:
    batch = [f"{args['prefix']}-{n + i:06d}" for i in range(args["batch"])]
    n += len(batch)
    errors = []
    for key in batch:
        producer.produce(
            args["topic"],
            key=key,
            value=key,
            on_delivery=lambda err, _msg: errors.append(str(err)) if err is not None else None,
        )
    if producer.flush(35) != 0 or errors:
        emit({"failed": batch, "error": errors[0] if errors else "not delivered within 35 s"})
    else:
        emit({"acked": batch})
    time.sleep(args["intervalMs"] / 1000)
producer.flush(35)
emit({"sent": n, "done": True})
