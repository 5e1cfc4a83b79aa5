package sealgate

import (
	"errors"
	"fmt"
	"strings"
)

// ReleasePolicy says when seal decisions happen (SPEC section 6).
type ReleasePolicy uint8

const (
	AfterTurn ReleasePolicy = iota // default: every decision at the attempt's close complete
	PerCall                        // tools declared early are decided at their own end
)

func (r ReleasePolicy) String() string {
	switch r {
	case AfterTurn:
		return "after-turn"
	case PerCall:
		return "per-call"
	}
	return fmt.Sprintf("release(%d)", uint8(r))
}

// BatchPolicy says whether one failing call stops the others of its attempt.
type BatchPolicy uint8

const (
	Independent BatchPolicy = iota // default
	Atomic
)

func (b BatchPolicy) String() string {
	switch b {
	case Independent:
		return "independent"
	case Atomic:
		return "atomic"
	}
	return fmt.Sprintf("batch(%d)", uint8(b))
}

// Limits bound what the gate retains. Every limit must be a positive
// integer; a limit is passed only when it is exceeded.
type Limits struct {
	CallBytes    int // raw bytes of one call
	TurnBytes    int // raw bytes received by one attempt
	Calls        int // calls begun per attempt
	Depth        int // nesting depth of the arguments; {} has depth 1
	PreviewBytes int // bytes of the buffer a preview reads
}

// MaxDepth is the largest depth limit a configuration may set: the strict
// JSON parser the gate relies on (jsontext) stops at this nesting, so a
// larger limit could not be honoured exactly and is refused instead.
const MaxDepth = 10000

// DefaultLimits returns the SPEC's defaults.
func DefaultLimits() Limits {
	return Limits{CallBytes: 1 << 20, TurnBytes: 4 << 20, Calls: 64, Depth: 64, PreviewBytes: 64 << 10}
}

// IdemMode chooses what an idempotency key is made of (SPEC section 4).
type IdemMode uint8

const (
	IdemArgs   IdemMode = iota // default: turn, tool name and canonical arguments
	IdemCall                   // turn and vendor call id
	IdemFields                 // tool name and the canonical values of listed top-level fields; global, not per turn
)

// Idem is a tool's idempotency key rule.
type Idem struct {
	Mode   IdemMode
	Fields []string // IdemFields only, in the order given
}

func (i Idem) String() string {
	switch i.Mode {
	case IdemArgs:
		return "args"
	case IdemCall:
		return "call"
	case IdemFields:
		return "fields:" + strings.Join(i.Fields, ",")
	}
	return fmt.Sprintf("idem(%d)", uint8(i.Mode))
}

// Allow is an authorization rule: the top-level string field Field must
// equal one of Values after unescaping.
type Allow struct {
	Field  string
	Values []string
}

// Tool declares one tool the gate may release calls to.
type Tool struct {
	Name   string
	Schema string // JSON Schema draft 2020-12, as strict JSON text
	Allow  *Allow // nil: unrestricted
	// Early tools may be released at their own end under PerCall; declaring
	// early declares that the tool has a compensation.
	Early   bool
	Idem    Idem
	Secrets []string // top-level member names or JSON Pointers like /auth/token
}

// Config is everything a gate is built from. Start from DefaultConfig: a
// zero Limits is refused, never silently replaced by defaults.
type Config struct {
	Tools   []Tool
	Release ReleasePolicy
	Batch   BatchPolicy
	Limits  Limits
}

// DefaultConfig returns a configuration with no tools, the default policy and
// the default limits.
func DefaultConfig() Config { return Config{Limits: DefaultLimits()} }

// Tool returns the declaration of the named tool.
func (c *Config) Tool(name string) (*Tool, bool) {
	for i := range c.Tools {
		if c.Tools[i].Name == name {
			return &c.Tools[i], true
		}
	}
	return nil, false
}

// Validate checks the structural rules of SPEC section 4 that need no JSON
// machinery: policies, limits, early tools, idempotency fields, secret
// pointers, unique tool names. Schemas are compiled by whoever runs the
// configuration (gate or model), each with its own strict parser.
func (c *Config) Validate() error {
	if c.Release != AfterTurn && c.Release != PerCall {
		return fmt.Errorf("policy: unknown release %d", c.Release)
	}
	if c.Batch != Independent && c.Batch != Atomic {
		return fmt.Errorf("policy: unknown batch %d", c.Batch)
	}
	if c.Release == PerCall && c.Batch == Atomic {
		return errors.New("policy: batch=atomic cannot be combined with release=per-call")
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"call-bytes", c.Limits.CallBytes}, {"turn-bytes", c.Limits.TurnBytes},
		{"calls", c.Limits.Calls}, {"depth", c.Limits.Depth}, {"preview-bytes", c.Limits.PreviewBytes}} {
		if l.v <= 0 {
			return fmt.Errorf("limit %s=%d: must be a positive integer", l.name, l.v)
		}
	}
	if c.Limits.Depth > MaxDepth {
		return fmt.Errorf("limit depth=%d: above %d, the deepest nesting the strict parser can check", c.Limits.Depth, MaxDepth)
	}
	seen := map[string]bool{}
	for i := range c.Tools {
		t := &c.Tools[i]
		if t.Name == "" {
			return fmt.Errorf("tool #%d: empty name", i+1)
		}
		if seen[t.Name] {
			return fmt.Errorf("tool %s: declared twice", t.Name)
		}
		seen[t.Name] = true
		if t.Early && c.Release != PerCall {
			return fmt.Errorf("tool %s: early release needs release=per-call", t.Name)
		}
		switch t.Idem.Mode {
		case IdemArgs, IdemCall:
			if len(t.Idem.Fields) > 0 {
				return fmt.Errorf("tool %s: idem %s takes no fields", t.Name, t.Idem)
			}
		case IdemFields:
			if len(t.Idem.Fields) == 0 {
				return fmt.Errorf("tool %s: idem fields: needs at least one field name", t.Name)
			}
			for _, f := range t.Idem.Fields {
				if f == "" {
					return fmt.Errorf("tool %s: idem %s: empty field name", t.Name, t.Idem)
				}
			}
		default:
			return fmt.Errorf("tool %s: unknown idem mode %d", t.Name, t.Idem.Mode)
		}
		if t.Allow != nil && t.Allow.Field == "" {
			return fmt.Errorf("tool %s: allow rule with an empty field name", t.Name)
		}
		for _, s := range t.Secrets {
			if _, err := SecretPath(s); err != nil {
				return fmt.Errorf("tool %s: secret %q: %v", t.Name, s, err)
			}
		}
	}
	return nil
}

// SecretPath turns a secret field declaration into the member names it
// walks: a top-level name is one step; a JSON Pointer (RFC 6901, starting
// with "/") is one step per reference token, with ~1 and ~0 unescaped. A
// "~" followed by anything but 0 or 1 is an error.
func SecretPath(s string) ([]string, error) {
	if !strings.HasPrefix(s, "/") {
		return []string{s}, nil
	}
	parts := strings.Split(s[1:], "/")
	for i, p := range parts {
		if !strings.Contains(p, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(p); j++ {
			if p[j] != '~' {
				b.WriteByte(p[j])
				continue
			}
			if j+1 < len(p) && p[j+1] == '0' {
				b.WriteByte('~')
			} else if j+1 < len(p) && p[j+1] == '1' {
				b.WriteByte('/')
			} else {
				return nil, fmt.Errorf("JSON Pointer token %d: \"~\" must be followed by 0 or 1", i+1)
			}
			j++
		}
		parts[i] = b.String()
	}
	return parts, nil
}
