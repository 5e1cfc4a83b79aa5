#!/usr/bin/env python3
"""A naive gate, behind sealgate's stdio protocol: it closes brackets on a
disconnect.

It runs every call that parses as a JSON object at a clean close (its raw
text compacted, as a sealed release would be), and when
the connection drops (close status=disconnected) it "keeps things smooth":
it closes the open string and brackets of each call and runs what parses.
That is the failure of SPEC section 1: the file is written with half its
content. The suite reduces it to a counterexample of a repair at a
disconnect (docs/protocol.md).
"""

import json

from stdio_protocol import RELEASE_ONLY, Calls, compact, release, serve


def close_brackets(buf):
    """Finish a cut JSON text: close an open string, drop a dangling comma,
    give a dangling colon a null, close every open bracket."""
    stack, in_string, escaped = [], False, False
    for ch in buf:
        if in_string:
            if escaped:
                escaped = False
            elif ch == 0x5C:  # backslash
                escaped = True
            elif ch == 0x22:
                in_string = False
        elif ch == 0x22:
            in_string = True
        elif ch in b"[{":
            stack.append(b"]" if ch == 0x5B else b"}")
        elif ch in b"]}" and stack:
            stack.pop()
    text = buf
    if in_string:
        text += b'"'
    text = text.rstrip()
    if text.endswith(b","):
        text = text[:-1]
    elif text.endswith(b":"):
        text += b"null"
    return text + b"".join(reversed(stack))


class NaiveGate:
    def __init__(self, config, ledger):
        self.calls = Calls()

    def feed(self, ev):
        self.calls.feed(ev)
        if ev["kind"] != "close":
            return []
        out = []
        for c in self.calls.take(ev["attempt"]):
            if ev["status"] not in ("complete", "disconnected"):
                continue
            text = c["buf"]
            if ev["status"] == "disconnected":
                text = close_brackets(text)
            try:
                doc = json.loads(text.decode("utf-8"))
            except ValueError:
                continue
            if isinstance(doc, dict):
                out.append(release(ev["attempt"], c["item"], c["call"], c["tool"], c["call"], compact(text)))
        return out


if __name__ == "__main__":
    serve(NaiveGate, "naive bracket closer", RELEASE_ONLY)
