#!/usr/bin/env python3
"""A gate that implements the seal but not the allow-lists, behind sealgate's
stdio protocol.

It releases a call when its attempt closes complete, the call has ended and
its text is one JSON object, compacted; it ignores each tool's `allow` rule.
It claims to release only, so no check of a verdict it does not give
applies. What it releases is still held to the reference model: on
corpus/seed/unauthorized-path.scn it releases save_file /etc/passwd, and
`sealfuzz test` reports I14 (release soundness) with the model's verdict,
reject unauthorized (docs/protocol.md, stdiogate/examples_test.go).
"""

import json

from stdio_protocol import RELEASE_ONLY, Calls, compact, release, serve


class AllowListBlindGate:
    def __init__(self, config, ledger):
        self.calls = Calls()

    def feed(self, ev):
        self.calls.feed(ev)
        if ev["kind"] != "close" or ev["status"] != "complete":
            if ev["kind"] == "close":
                self.calls.take(ev["attempt"])
            return []
        return [release(ev["attempt"], c["item"], c["call"], c["tool"], c["call"], compact(c["buf"]))
                for c in self.calls.take(ev["attempt"])
                if c["ended"] and self.is_object(c["buf"])]

    @staticmethod
    def is_object(buf):
        try:
            return isinstance(json.loads(buf.decode("utf-8")), dict)
        except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            return False


if __name__ == "__main__":
    serve(AllowListBlindGate, "allow-list blind gate", RELEASE_ONLY)
