package fuzzkit

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ParseFuzzFile reads a file of Go's fuzzing corpus format ("go test fuzz
// v1", then one Go expression per argument), as written to testdata/fuzz
// when a target fails. It knows the argument types this suite's targets
// take: []byte, string, byte/uint8, int and bool.
func ParseFuzzFile(src []byte) ([]any, error) {
	lines := strings.Split(strings.TrimRight(string(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))), "\n"), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("line 1: want %q", "go test fuzz v1")
	}
	var out []any
	for i, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		open := strings.IndexByte(l, '(')
		if open < 0 || !strings.HasSuffix(l, ")") {
			return nil, fmt.Errorf("line %d: want TYPE(VALUE), got %q", i+2, l)
		}
		typ, lit := l[:open], l[open+1:len(l)-1]
		var err error
		switch typ {
		case "[]byte", "string":
			var s string
			if s, err = strconv.Unquote(lit); err == nil {
				if typ == "string" {
					out = append(out, s)
				} else {
					out = append(out, []byte(s))
				}
			}
		case "byte", "uint8":
			var v uint64
			if strings.HasPrefix(lit, "'") {
				var r string
				if r, err = strconv.Unquote(lit); err == nil {
					if len(r) == 1 {
						v = uint64(r[0])
					} else if rs := []rune(r); len(rs) == 1 && rs[0] < 256 {
						v = uint64(rs[0])
					} else {
						err = fmt.Errorf("not one byte")
					}
				}
			} else {
				v, err = strconv.ParseUint(lit, 0, 8)
			}
			out = append(out, uint8(v))
		case "int":
			var v int64
			v, err = strconv.ParseInt(lit, 0, 64)
			out = append(out, int(v))
		case "bool":
			var v bool
			v, err = strconv.ParseBool(lit)
			out = append(out, v)
		default:
			return nil, fmt.Errorf("line %d: unsupported type %q", i+2, typ)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: bad %s literal %s: %v", i+2, typ, lit, err)
		}
	}
	return out, nil
}
