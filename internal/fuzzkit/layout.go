package fuzzkit

import (
	"encoding/binary"
	"fmt"
)

// The libFuzzer shim of go-118-fuzz-build gives a target one byte string
// and decodes the fuzz function's arguments from it with go-fuzz-headers,
// in order: a []byte or string is a big-endian uint32 length then the
// bytes (a length of 0 means 30; a length other than what is left is
// taken modulo what is left; nothing left skips the input), a uint8 is one
// byte, a bool is one byte that is true when even, a uint16/uint64/int64
// is its bytes then one byte that, when even, says they are little-endian. A crash file that
// libFuzzer writes is that byte string, not go fuzz's "go test fuzz v1"
// text, so Encode writes seeds in it and Decode reads crash files back.

// bigEndian is the odd byte after a number that says its bytes are
// big-endian.
const bigEndian = 1

// Encode lays out args (values of the kinds the suite's targets take:
// []byte, string, bool, uint8, uint16, uint64, int64) so that the shim
// decodes exactly them.
func Encode(args ...any) ([]byte, error) {
	var out []byte
	for i, a := range args {
		switch v := a.(type) {
		case []byte:
			out = appendBytes(out, v)
		case string:
			out = appendBytes(out, []byte(v))
		case bool:
			if v {
				out = append(out, 0)
			} else {
				out = append(out, 1)
			}
		case uint8:
			out = append(out, v)
		case uint16:
			out = binary.BigEndian.AppendUint16(out, v)
			out = append(out, bigEndian)
		case uint64:
			out = binary.BigEndian.AppendUint64(out, v)
			out = append(out, bigEndian)
		case int64:
			out = binary.BigEndian.AppendUint64(out, uint64(v))
			out = append(out, bigEndian)
		default:
			return nil, fmt.Errorf("fuzzkit.Encode: argument %d is a %T, which the shim's layout does not cover here", i, a)
		}
	}
	return out, nil
}

// appendBytes writes one byte string. The shim cannot give an empty one
// (it reads a length of 0 as 30, and skips an input with nothing left), so
// an empty string is written as one zero byte, the nearest input it can.
func appendBytes(out, b []byte) []byte {
	if len(b) == 0 {
		b = []byte{0}
	}
	out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
	return append(out, b...)
}

// Decode reads data as the shim does for a function taking arguments of
// the kinds of like (one zero value per argument: []byte(nil), "",
// false, uint8(0), uint16(0), uint64(0), int64(0)). ok is false when the
// shim would skip the input (it ran out of bytes).
func Decode(data []byte, like ...any) (args []any, ok bool, err error) {
	pos := 0
	left := func() int { return len(data) - pos }
	take := func(n int) []byte {
		b := data[pos : pos+n]
		pos += n
		return b
	}
	for i, l := range like {
		switch l.(type) {
		case []byte, string:
			if left() < 4 {
				return nil, false, nil
			}
			n := uint32(binary.BigEndian.Uint32(take(4)))
			if n == 0 {
				n = 30
			}
			rest := uint32(left())
			if rest == 0 {
				return nil, false, nil
			}
			if n != rest {
				n %= rest
			}
			b := take(int(n))
			if _, isString := l.(string); isString {
				args = append(args, string(b))
			} else {
				args = append(args, b)
			}
		case bool, uint8:
			if left() < 1 {
				return nil, false, nil
			}
			b := take(1)[0]
			if _, isBool := l.(bool); isBool {
				args = append(args, b%2 == 0)
			} else {
				args = append(args, b)
			}
		case uint16:
			if left() < 3 {
				return nil, false, nil
			}
			b := take(3)
			if b[2]%2 == 0 {
				args = append(args, binary.LittleEndian.Uint16(b))
			} else {
				args = append(args, binary.BigEndian.Uint16(b))
			}
		case uint64, int64:
			if left() < 9 {
				return nil, false, nil
			}
			b := take(9)
			v := binary.BigEndian.Uint64(b)
			if b[8]%2 == 0 {
				v = binary.LittleEndian.Uint64(b)
			}
			if _, isInt := l.(int64); isInt {
				args = append(args, int64(v))
			} else {
				args = append(args, v)
			}
		default:
			return nil, false, fmt.Errorf("fuzzkit.Decode: argument %d is a %T, which the shim's layout does not cover here", i, l)
		}
	}
	return args, true, nil
}
