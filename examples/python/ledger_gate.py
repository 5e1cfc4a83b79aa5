#!/usr/bin/env python3
"""A small gate with a durable ledger, behind sealgate's stdio protocol.

It releases a call when its attempt, opened and neither reopened nor
superseded by a later attempt of its turn, closes complete, the call has
ended and its text is one JSON object, under the key sha256(turn, tool, the
compacted text). The ledger is a file of JSON lines at the path of each
config line: a key is written and fsynced before its release line is. A
key already in the ledger is not released again, across restarts too:
that is what the claim "restarts" asks the suite to check (I7 across
restarts). It takes no acks: its keys are not the SPEC's (that needs the
RFC 8785 form), so an executor's acks could not reach its releases.

It is not a whole-SPEC gate, and says so by what it claims: it ignores
allow-lists, idempotency fields and anomalies such as an end of a call
never begun, and takes any JSON object Python reads (noncharacters
included). `sealfuzz test -gate` finds each of these (SEAL, I1, I14, I7)
within seconds; it is here to show a durable ledger across restarts and
the speed of an interpreted gate, not a correct one.

A restart reaches it as the same config line again (docs/protocol.md):
it forgets every call in flight and reads the ledger back. It is also the
example whose streams per second `sealfuzz test` measures for a gate in
an interpreted language.
"""

import hashlib
import json
import os

from stdio_protocol import RELEASE_ONLY, Calls, compact, release, serve


class LedgerGate:
    def __init__(self, config, ledger):
        self.calls = Calls()
        self.turns = {}
        self.dead = set()  # attempts reopened or superseded: they release nothing
        self.path = ledger
        self.keys = {}
        if os.path.exists(ledger):
            with open(ledger, "rb") as f:
                for line in f:
                    if line.endswith(b"\n"):  # a torn last line was never acknowledged
                        rec = json.loads(line)
                        self.apply(rec["key"], rec["state"])
        self.log = open(ledger, "ab")

    def apply(self, key, state):
        self.keys[key] = state

    def write(self, key, state):
        self.log.write(json.dumps({"key": key, "state": state}).encode() + b"\n")
        self.log.flush()
        os.fsync(self.log.fileno())
        self.apply(key, state)

    def feed(self, ev):
        kind = ev["kind"]
        if kind == "open":
            attempt, turn = ev["attempt"], ev.get("turn", "")
            if attempt in self.turns:
                self.dead.add(attempt)  # a reopen poisons the attempt
            for other, t in self.turns.items():
                if other != attempt and t == turn:
                    self.dead.add(other)  # a new attempt of the turn supersedes the old one
            self.turns[attempt] = turn
        self.calls.feed(ev)
        if kind != "close":
            return []
        out = []
        opened = ev["attempt"] in self.turns and ev["attempt"] not in self.dead
        for c in self.calls.take(ev["attempt"]):
            if not opened or ev["status"] != "complete" or not c["ended"] or not self.is_object(c["buf"]):
                continue
            args = compact(c["buf"])
            turn = self.turns.get(ev["attempt"], "")
            key = hashlib.sha256(b"\0".join([turn.encode(), c["tool"].encode(), args])).hexdigest()[:16]
            if key in self.keys:
                continue
            self.write(key, "released")
            out.append(release(ev["attempt"], c["item"], c["call"], c["tool"], key, args))
        return out

    @staticmethod
    def is_object(buf):
        try:
            return isinstance(json.loads(buf.decode("utf-8")), dict)
        except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            return False


if __name__ == "__main__":
    serve(LedgerGate, "ledger gate", dict(RELEASE_ONLY, restarts=True))
