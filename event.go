package sealgate

import (
	"bytes"
	"strconv"
	"strings"
)

// EventKind names one of the normalized events of SPEC section 2.
type EventKind uint8

const (
	Open EventKind = iota + 1
	Begin
	Delta
	End
	Close
	Ack
	Restart
	Peek
)

var eventWords = [...]string{Open: "open", Begin: "begin", Delta: "delta", End: "end",
	Close: "close", Ack: "ack", Restart: "restart", Peek: "peek"}

func (k EventKind) String() string {
	if int(k) < len(eventWords) && eventWords[k] != "" {
		return eventWords[k]
	}
	return "event(" + strconv.Itoa(int(k)) + ")"
}

// ParseEventKind returns the kind named by a scenario line word.
func ParseEventKind(w string) (EventKind, bool) {
	for k, s := range eventWords {
		if s != "" && s == w {
			return EventKind(k), true
		}
	}
	return 0, false
}

// Status is how an attempt ended, as its adapter decided (SPEC section 2).
// Only Complete authorizes any release.
type Status uint8

const (
	Complete Status = iota + 1
	Truncated
	Failed
	Cancelled
	Disconnected
)

var statusWords = [...]string{Complete: "complete", Truncated: "truncated", Failed: "failed",
	Cancelled: "cancelled", Disconnected: "disconnected"}

func (s Status) String() string {
	if int(s) < len(statusWords) && statusWords[s] != "" {
		return statusWords[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// ParseStatus returns the status named by w.
func ParseStatus(w string) (Status, bool) {
	for s, n := range statusWords {
		if n != "" && n == w {
			return Status(s), true
		}
	}
	return 0, false
}

// Valid reports whether s is one of the five statuses.
func (s Status) Valid() bool { return s >= Complete && s <= Disconnected }

// Event is one normalized stream event. Which fields matter depends on Kind:
//
//	Open    Attempt, Turn
//	Begin   Attempt, Item, Call, Tool
//	Delta   Attempt, Item, Bytes
//	End     Attempt, Item, Final (when HasFinal)
//	Close   Attempt, Status
//	Ack     Key, OK
//	Restart (none)
//	Peek    Attempt, Item
//
// Bytes and Final are raw: they may split a UTF-8 sequence or an escape.
type Event struct {
	Kind     EventKind
	Attempt  string
	Turn     string
	Item     string
	Call     string
	Tool     string
	Bytes    []byte
	Final    []byte
	HasFinal bool
	Status   Status
	Key      string
	OK       bool
}

// Constructors, so that tests and adapters read like the scenario files.

func OpenEvent(attempt, turn string) Event {
	return Event{Kind: Open, Attempt: attempt, Turn: turn}
}
func BeginEvent(attempt, item, call, tool string) Event {
	return Event{Kind: Begin, Attempt: attempt, Item: item, Call: call, Tool: tool}
}
func DeltaEvent(attempt, item string, b []byte) Event {
	return Event{Kind: Delta, Attempt: attempt, Item: item, Bytes: b}
}
func EndEvent(attempt, item string) Event {
	return Event{Kind: End, Attempt: attempt, Item: item}
}
func EndFinalEvent(attempt, item string, final []byte) Event {
	return Event{Kind: End, Attempt: attempt, Item: item, Final: final, HasFinal: true}
}
func CloseEvent(attempt string, s Status) Event {
	return Event{Kind: Close, Attempt: attempt, Status: s}
}
func AckEvent(key string, ok bool) Event { return Event{Kind: Ack, Key: key, OK: ok} }
func RestartEvent() Event                { return Event{Kind: Restart} }
func PeekEvent(attempt, item string) Event {
	return Event{Kind: Peek, Attempt: attempt, Item: item}
}

// NamesItem reports whether events of this kind carry an item; an anomaly
// line names the item exactly when its event does (SPEC section 3).
func (k EventKind) NamesItem() bool {
	return k == Begin || k == Delta || k == End || k == Peek
}

// String renders the event as its scenario line (SPEC section 10).
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case Open:
		b.WriteString(" " + e.Attempt + " turn=" + e.Turn)
	case Begin:
		b.WriteString(" " + e.Attempt + " item=" + e.Item + " call=" + e.Call + " tool=" + e.Tool)
	case Delta:
		b.WriteString(" " + e.Attempt + " item=" + e.Item + " " + strconv.Quote(string(e.Bytes)))
	case End:
		b.WriteString(" " + e.Attempt + " item=" + e.Item)
		if e.HasFinal {
			b.WriteString(" final=" + strconv.Quote(string(e.Final)))
		}
	case Close:
		b.WriteString(" " + e.Attempt + " status=" + e.Status.String())
	case Ack:
		if e.OK {
			b.WriteString(" " + e.Key + " ok")
		} else {
			b.WriteString(" " + e.Key + " fail")
		}
	case Peek:
		b.WriteString(" " + e.Attempt + " item=" + e.Item)
	}
	return b.String()
}

// Equal reports whether e and o are the same event, field by field, with
// nil and empty byte strings equal. Events hold byte slices, so == cannot
// compare them, and whoever compares two streams (a decoder against its
// encoder, a scenario against its printed form) needs the same answer.
func (e Event) Equal(o Event) bool {
	return e.Kind == o.Kind && e.Attempt == o.Attempt && e.Turn == o.Turn && e.Item == o.Item &&
		e.Call == o.Call && e.Tool == o.Tool && bytes.Equal(e.Bytes, o.Bytes) &&
		bytes.Equal(e.Final, o.Final) && e.HasFinal == o.HasFinal && e.Status == o.Status &&
		e.Key == o.Key && e.OK == o.OK
}
