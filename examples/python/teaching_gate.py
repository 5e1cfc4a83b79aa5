#!/usr/bin/env python3
"""The seed article's teaching check, behind sealgate's stdio protocol.

The article (seeds/000_97d98e73c5218ce0.txt) ran a small deterministic
check with Python's standard library. Its rules, as it states them: every
call accumulates its own string; a call is put in the (in-memory) execution
record only when that call has ended, the turn's normal-end flag holds
(here: close status=complete), the whole text parses as JSON, the two
string fields path and content are present, and path is the authorized
notes.md. Nothing else: it knows no idempotency key, no supersede, no
anomaly, no limit, no schema. It releases the call's raw text compacted.

The suite's verdicts on it are stated in docs/protocol.md and tested in
stdiogate/examples_test.go.
"""

import json

from stdio_protocol import RELEASE_ONLY, Calls, compact, release, serve


class TeachingGate:
    def __init__(self, config, ledger):
        self.calls = Calls()

    def feed(self, ev):
        self.calls.feed(ev)
        if ev["kind"] != "close":
            return []
        message_ok = ev["status"] == "complete"
        return [release(ev["attempt"], c["item"], c["call"], c["tool"], c["call"], compact(c["buf"]))
                for c in self.calls.take(ev["attempt"])
                if message_ok and c["ended"] and self.sealed(c["buf"])]

    @staticmethod
    def sealed(buf):
        try:
            doc = json.loads(buf.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            return False
        return (isinstance(doc, dict) and isinstance(doc.get("path"), str)
                and isinstance(doc.get("content"), str) and doc["path"] == "notes.md")


if __name__ == "__main__":
    serve(TeachingGate, "seed teaching check", RELEASE_ONLY)
