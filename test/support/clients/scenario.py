"""The scenario of harness.ts, step by step, for the Python drivers (kafka_python.py,
confluent_kafka_python.py, run by Debian's /usr/bin/python3): the order of the steps, what each
waits for and reports, the bounds, and the DriverResult printed as one JSON line. A driver gives
only its client's calls:

- `admin()`: creates s["adminTopic"] (2 partitions) and checks the client's metadata of it;
- `member(group_id, topic)`: a group member reading from the earliest offset (or the group's
  committed ones): `got` (the messages read), `poll()` (reads a little and commits what it read),
  `held()` (how many partitions it is assigned), `close()`;
- `send(messages, codec="none")`: produces to s["topic"], acknowledged;
- `transactions(run, txn)` (clients with them): the transactions and consume-transform-produce
  steps, through `run.step` and `run.pump`;
- `opened`: every client it made (closed at the end).

Group members are polled in turn from this one thread: the clients run their heartbeats (and
librdkafka its rebalances) inside or beside poll."""

import json
import os
import signal
import time
import traceback

WAIT_S = 30.0


class Member:
    """What the drivers' group members share: their client's `consumer` (whose `assignment()` is
    what it holds), `got` and `closed`; a driver adds `poll()`."""

    def held(self):
        return 0 if self.closed else len(self.consumer.assignment())

    def close(self):
        self.closed = True
        self.consumer.close()


class StepTimeout(BaseException):
    """Raised in the step that outlived its bound; a BaseException, so that a client's own
    `except Exception` handlers let it through."""


class Run:
    """One run of the scenario `s` with `client`. `step_s`: each step's own bound (for a client
    whose calls can block without one), or None for the driver's bound (s["timeoutMs"]) only."""

    def __init__(self, s, client, step_s=None):
        self.s = s
        self.client = client
        self.steps = {}
        self.result = {"steps": self.steps}
        self.step_s = step_s
        self.running = []
        self.deadline = time.monotonic() + s["timeoutMs"] / 1000
        # The deadlines of the running steps (a step may run inside another).
        self.step_deadlines = []
        signal.signal(signal.SIGALRM, self._on_alarm)
        self._arm()

    def _arm(self):
        """Sets the alarm for the innermost running step (or the driver's deadline)."""
        end = min([self.deadline, *self.step_deadlines[-1:]])
        signal.setitimer(signal.ITIMER_REAL, max(0.01, end - time.monotonic()))

    def _on_alarm(self, _signum, _frame):
        if time.monotonic() >= self.deadline - 0.01:
            self._out_of_time()
        if self.step_deadlines and time.monotonic() >= self.step_deadlines[-1] - 0.01:
            raise StepTimeout(f"the step's bound ({self.step_s} s) ended it")
        self._arm()

    def _out_of_time(self):
        """The driver's own bound: reports what it has (the steps it was in as failed) and exits."""
        for name in self.running:
            self.steps[name] = {"ok": False, "error": f"the driver's time-out ({self.s['timeoutMs']} ms) ended this step"}
        print(json.dumps(self.result), flush=True)
        os._exit(0)

    def step(self, name, f):
        """Runs `f` as step `name`: its result, or its error as the step's."""
        self.running.append(name)
        if self.step_s is not None:
            self.step_deadlines.append(min(self.deadline, time.monotonic() + self.step_s))
            self._arm()
        try:
            f()
            self.steps[name] = {"ok": True}
        except (Exception, StepTimeout):  # the client's error, reported as the step's
            self.steps[name] = {"ok": False, "error": traceback.format_exc()}
        finally:
            self.running.pop()
            if self.step_s is not None:
                self.step_deadlines.pop()
                self._arm()

    @staticmethod
    def pump(members, done, what):
        """Polls `members` in turn until `done()`, within WAIT_S (else TimeoutError with `what()`)."""
        end = time.monotonic() + WAIT_S
        while not done():
            if time.monotonic() > end:
                raise TimeoutError(f"not within {WAIT_S} s: {what()}")
            for m in members:
                m.poll()

    def linger(self, member):
        """Polls `member` a little longer: a record it should not read would come now."""
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            member.poll()

    def group_step(self):
        s, c = self.s, self.client
        m1 = c.member(s["groupId"], s["topic"])
        m2 = c.member(s["groupId"], s["topic"])
        self.pump(
            [m1, m2],
            lambda: m1.held() > 0 and m2.held() > 0 and m1.held() + m2.held() == s["partitions"],
            lambda: f"the members hold {m1.held()} and {m2.held()} partitions",
        )

        def produce_phase1():
            for p in s["phase1"]:
                c.send(p["messages"], p["codec"])

        self.step("produce", produce_phase1)
        if not self.steps["produce"]["ok"]:
            raise RuntimeError("phase 1 was not produced")
        phase1 = sum(len(p["messages"]) for p in s["phase1"])
        self.pump(
            [m1, m2],
            lambda: len({json.dumps(m) for m in m1.got + m2.got}) == phase1,
            lambda: f"the members read {len(m1.got)} and {len(m2.got)} of phase 1's {phase1}",
        )
        self.result["group"] = {"phase1": [list(m1.got), list(m2.got)], "phase2": []}
        m2.close()
        self.pump([m1], lambda: m1.held() == s["partitions"], lambda: f"member 1 holds {m1.held()} partitions")
        mark = len(m1.got)
        c.send(s["phase2"])
        self.pump(
            [m1],
            lambda: len(m1.got) - mark >= len(s["phase2"]),
            lambda: f"member 1 read {len(m1.got) - mark} of phase 2's {len(s['phase2'])}",
        )
        self.result["group"]["phase2"] = m1.got[mark:]
        m1.close()

    def resume_step(self):
        s, c = self.s, self.client
        c.send(s["phase3"])
        m3 = c.member(s["groupId"], s["topic"])
        self.pump([m3], lambda: len(m3.got) >= len(s["phase3"]), lambda: f"the new member read {len(m3.got)}")
        self.linger(m3)
        self.result["resume"] = {"consumed": list(m3.got)}
        m3.close()

    def run(self):
        """The steps in order, then every client closed and the result printed."""
        s, c = self.s, self.client
        try:
            self.step("admin", c.admin)
            self.step("group", self.group_step)
            if "produce" not in self.steps:  # the group step failed before it: produce on its own
                self.step("produce", lambda: [c.send(p["messages"], p["codec"]) for p in s["phase1"]])
            self.step("resume", self.resume_step)
            if s.get("txn") and hasattr(c, "transactions"):
                c.transactions(self, s["txn"])
        finally:
            # Closing a client that never reached its coordinator can block: 5 s, then the
            # result as it stands.
            self.deadline = min(self.deadline, time.monotonic() + 5)
            self._arm()
            for opened in c.opened:
                try:
                    opened.close()
                except Exception:  # already closed
                    pass
        print(json.dumps(self.result), flush=True)
