"""The gate side of sealgate's stdio protocol (docs/protocol.md), for
gates written in Python with the standard library only.

A gate is an object with feed(event) -> list of decisions, built by a
factory from the configuration and the ledger path of a run. serve() reads
the protocol on stdin and answers on stdout, one JSON object a line.
"""

import base64
import json
import sys

VERSION = 1


def compact(raw):
    """Remove JSON whitespace outside strings, as sealgate.Compact does."""
    out = bytearray()
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c in b" \t\n\r":
            i += 1
            continue
        out.append(c)
        if c == 0x22:  # a string: copy to its closing quote
            i += 1
            while i < n:
                out.append(raw[i])
                if raw[i] == 0x5C and i + 1 < n:  # backslash: copy the escaped byte too
                    out.append(raw[i + 1])
                    i += 2
                    continue
                if raw[i] == 0x22:
                    break
                i += 1
        i += 1
    return bytes(out)


def release(attempt, item, call, tool, key, args):
    """A release decision; args are bytes, sent as text when they are UTF-8."""
    d = {"kind": "release", "attempt": attempt, "item": item, "call": call, "tool": tool, "key": key}
    try:
        d["args"] = args.decode("utf-8")
    except UnicodeDecodeError:
        d["args64"] = base64.b64encode(args).decode("ascii")
    return d


def decode_event(e):
    """The event as a dict, with bytes and final decoded from base64."""
    ev = dict(e)
    if "bytes64" in ev:
        ev["bytes"] = base64.b64decode(ev.pop("bytes64"), validate=True)
    elif ev.get("kind") == "delta":
        ev["bytes"] = b""
    if "final64" in ev:
        ev["final"] = base64.b64decode(ev.pop("final64"), validate=True)
    return ev


class Calls:
    """Each call's own record, by (attempt, item), in begin order: its id,
    tool, bytes received and whether it ended. A second begin of an item is
    ignored, and so are deltas and ends for an item never begun."""

    def __init__(self):
        self.by_item = {}

    def feed(self, ev):
        key = (ev.get("attempt", ""), ev.get("item", ""))
        kind = ev["kind"]
        if kind == "begin":
            self.by_item.setdefault(key, {"item": key[1], "call": ev["call"], "tool": ev["tool"], "buf": b"", "ended": False})
        elif key in self.by_item and kind == "delta":
            self.by_item[key]["buf"] += ev["bytes"]
        elif key in self.by_item and kind == "end":
            self.by_item[key]["ended"] = True

    def take(self, attempt):
        """Remove and return the calls of an attempt, in begin order."""
        out = [c for (a, _), c in self.by_item.items() if a == attempt]
        for c in out:
            del self.by_item[(attempt, c["item"])]
        return out


def serve(factory, name, capabilities):
    """Run the protocol until stdin ends."""
    out = sys.stdout

    def say(msg):
        msg["v"] = VERSION
        out.write(json.dumps(msg, ensure_ascii=True, separators=(",", ":")) + "\n")

    gate = None
    for line in sys.stdin.buffer:
        n = None
        try:
            msg = json.loads(line)
            if not isinstance(msg, dict) or msg.get("v") != VERSION:
                raise ValueError("not a version %d protocol line" % VERSION)
            n = msg.get("n")
            if msg["type"] == "config":
                try:
                    gate = factory(msg["config"], msg["ledger"])
                except ValueError as refusal:
                    gate = None
                    say({"type": "refused", "text": str(refusal)})
                else:
                    say({"type": "hello", "name": name, "capabilities": capabilities})
            elif msg["type"] == "event":
                if gate is None:
                    raise ValueError("an event before any accepted config line")
                for d in gate.feed(decode_event(msg["event"])):
                    say({"type": "decision", "decision": d})
                say({"type": "done", "n": n})
            else:
                raise ValueError("unknown message type %r" % msg["type"])
        except (ValueError, KeyError, TypeError) as err:
            e = {"type": "error", "text": "%s: %s" % (type(err).__name__, err)}
            if isinstance(n, int):
                e["n"] = n
            say(e)
        out.flush()


# What a gate that only releases can claim (check.Capabilities{} in Go):
# no other decision kind, no peeks, acks or restarts.
RELEASE_ONLY = {
    "full": False, "decisions": [], "peeks": False, "acks": False, "restarts": False,
    "schemas": False, "reasons": False, "retained": False, "split_runes": True,
}
