package sealgate

import (
	"bytes"
	"strconv"
	"strings"
)

// DecisionKind is what the gate says about one call (or, for Anomaly and
// Refused, about the stream or the configuration).
type DecisionKind uint8

const (
	Release DecisionKind = iota + 1
	Reject
	Anomaly
	Compensate
	Reconcile
	PreviewAnswer
	Refused
)

var decisionWords = [...]string{Release: "release", Reject: "reject", Anomaly: "anomaly",
	Compensate: "compensate", Reconcile: "reconcile", PreviewAnswer: "preview", Refused: "refused"}

func (k DecisionKind) String() string {
	if int(k) < len(decisionWords) && decisionWords[k] != "" {
		return decisionWords[k]
	}
	return "decision(" + strconv.Itoa(int(k)) + ")"
}

// ParseDecisionKind returns the kind named by a decision line word.
func ParseDecisionKind(w string) (DecisionKind, bool) {
	for k, s := range decisionWords {
		if s != "" && s == w {
			return DecisionKind(k), true
		}
	}
	return 0, false
}

// Reason is why a call was rejected: a failed seal check (SPEC section 5) or
// the way its attempt ended (section 6).
type Reason string

const (
	Incomplete       Reason = "incomplete"
	MalformedJSON    Reason = "malformed-json"
	TooDeep          Reason = "too-deep"
	NotObject        Reason = "not-object"
	SchemaFailed     Reason = "schema"
	Unauthorized     Reason = "unauthorized"
	Duplicate        Reason = "duplicate"
	DuplicateEffect  Reason = "duplicate-effect"
	BatchAborted     Reason = "batch-aborted"
	TooLarge         Reason = "too-large"
	TurnTruncated    Reason = "turn-truncated"
	TurnFailed       Reason = "turn-failed"
	TurnCancelled    Reason = "turn-cancelled"
	TurnDisconnected Reason = "turn-disconnected"
	TurnAnomaly      Reason = "turn-anomaly"
	Superseded       Reason = "superseded"
)

// Reasons lists every reject reason, in SPEC order.
var Reasons = []Reason{Incomplete, MalformedJSON, TooDeep, NotObject, SchemaFailed,
	Unauthorized, Duplicate, DuplicateEffect, BatchAborted, TooLarge, TurnTruncated,
	TurnFailed, TurnCancelled, TurnDisconnected, TurnAnomaly, Superseded}

// Valid reports whether r is one of Reasons.
func (r Reason) Valid() bool {
	for _, x := range Reasons {
		if r == x {
			return true
		}
	}
	return false
}

// TurnReason is the reject reason for an undecided call whose attempt closed
// with status s (anything but Complete).
func TurnReason(s Status) Reason {
	switch s {
	case Truncated:
		return TurnTruncated
	case Failed:
		return TurnFailed
	case Cancelled:
		return TurnCancelled
	case Disconnected:
		return TurnDisconnected
	}
	return ""
}

// AnomalyKind names a shape violation of the stream (SPEC section 3).
type AnomalyKind string

const (
	NoOpen           AnomalyKind = "no-open"
	Reopen           AnomalyKind = "reopen"
	AfterClose       AnomalyKind = "after-close"
	UnknownCall      AnomalyKind = "unknown-call"
	AfterEnd         AnomalyKind = "after-end"
	DuplicateBegin   AnomalyKind = "duplicate-begin"
	IdentityConflict AnomalyKind = "identity-conflict"
	TooManyCalls     AnomalyKind = "too-many-calls"
	TurnTooLarge     AnomalyKind = "turn-too-large"
	FinalMismatch    AnomalyKind = "final-mismatch"
	UnknownAck       AnomalyKind = "unknown-ack"
)

// AnomalyKinds lists every anomaly kind, in SPEC order.
var AnomalyKinds = []AnomalyKind{NoOpen, Reopen, AfterClose, UnknownCall, AfterEnd,
	DuplicateBegin, IdentityConflict, TooManyCalls, TurnTooLarge, FinalMismatch, UnknownAck}

// Valid reports whether a is one of AnomalyKinds.
func (a AnomalyKind) Valid() bool {
	for _, x := range AnomalyKinds {
		if a == x {
			return true
		}
	}
	return false
}

// Sealed is a call's released argument text: its own raw bytes, complete by
// the protocol, strictly valid, compacted. It is the only thing a tool may
// receive. A Preview is a different type with no conversion to Sealed, so
// progress shown to a UI cannot be handed to an executor by accident.
type Sealed []byte

func (s Sealed) String() string { return string(s) }

// Preview is a best-effort, redacted, capped reading of an unfinished call,
// for display only (SPEC section 8). Bytes counts every byte received;
// Value is compact JSON, or "-" when nothing is readable yet.
type Preview struct {
	Bytes int
	Value string
}

// NoPreview is the answer for a call that is not live.
var NoPreview = Preview{Bytes: 0, Value: "-"}

// Decision is one line of the gate's output (SPEC section 7). At is the
// 1-based index of the event that caused it (0 for Refused).
//
//	Release        Attempt, Item, Call, Tool, Key, Args
//	Reject         Attempt, Item, Reason
//	Anomaly        Attempt, Item (when HasItem), Anomaly; Key for unknown-ack
//	Compensate     Attempt, Item, Key (of the release it undoes)
//	Reconcile      Attempt, Item, Key
//	PreviewAnswer  Attempt, Item, Preview
//	Refused        Text (why the configuration was refused)
type Decision struct {
	At      int
	Kind    DecisionKind
	Attempt string
	Item    string
	HasItem bool
	Call    string
	Tool    string
	Key     string
	Args    Sealed
	Reason  Reason
	Anomaly AnomalyKind
	Preview Preview
	Text    string
}

// Equal reports whether two decisions are the same line. A Refused
// decision's text is explanation, not contract: only its kind is compared.
func (d Decision) Equal(o Decision) bool {
	if d.Kind == Refused || o.Kind == Refused {
		return d.Kind == o.Kind && d.At == o.At
	}
	return d.At == o.At && d.Kind == o.Kind && d.Attempt == o.Attempt && d.Item == o.Item &&
		d.HasItem == o.HasItem && d.Call == o.Call && d.Tool == o.Tool && d.Key == o.Key &&
		bytes.Equal(d.Args, o.Args) && d.Reason == o.Reason && d.Anomaly == o.Anomaly &&
		d.Preview == o.Preview
}

// String renders the decision as its scenario line (SPEC section 10).
func (d Decision) String() string {
	var b strings.Builder
	b.WriteString("@" + strconv.Itoa(d.At) + " " + d.Kind.String())
	switch d.Kind {
	case Release:
		b.WriteString(" " + d.Attempt + " item=" + d.Item + " call=" + d.Call + " tool=" + d.Tool +
			" key=" + d.Key + " args=" + string(d.Args))
	case Reject:
		b.WriteString(" " + d.Attempt + " item=" + d.Item + " reason=" + string(d.Reason))
	case Anomaly:
		a := d.Attempt
		if a == "" {
			a = "-"
		}
		b.WriteString(" " + a)
		if d.HasItem {
			b.WriteString(" item=" + d.Item)
		}
		b.WriteString(" kind=" + string(d.Anomaly))
		if d.Anomaly == UnknownAck {
			b.WriteString(" key=" + d.Key)
		}
	case Compensate, Reconcile:
		b.WriteString(" " + d.Attempt + " item=" + d.Item + " key=" + d.Key)
	case PreviewAnswer:
		b.WriteString(" " + d.Attempt + " item=" + d.Item + " bytes=" + strconv.Itoa(d.Preview.Bytes) +
			" value=" + d.Preview.Value)
	case Refused:
		if d.Text != "" {
			b.WriteString(" " + strings.ReplaceAll(d.Text, "\n", " "))
		}
	}
	return b.String()
}
