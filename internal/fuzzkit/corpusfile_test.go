package fuzzkit

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseFuzzFile reads each argument type the suite's targets take, as
// go test writes them under testdata/fuzz, and names the line of a bad one.
func TestParseFuzzFile(t *testing.T) {
	src := "go test fuzz v1\r\n" +
		"[]byte(\"a\\x00b\")\n" +
		"string(\"日本\")\n" +
		"byte('\\x07')\n" +
		"uint8(200)\n" +
		"byte('A')\n" +
		"int(-3)\n" +
		"bool(true)\n\n"
	got, err := ParseFuzzFile([]byte(src))
	want := []any{[]byte("a\x00b"), "日本", uint8(7), uint8(200), uint8('A'), int(-3), true}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseFuzzFile = %#v, %v; want %#v", got, err, want)
	}
	for _, c := range []struct{ src, err string }{
		{"", "line 1"},
		{"go test fuzz v2\n", "line 1"},
		{"go test fuzz v1\n[]byte(\"x\")\nfloat64(1)\n", "line 3: unsupported type"},
		{"go test fuzz v1\nuint8(256)\n", "line 2: bad uint8"},
		{"go test fuzz v1\nbyte('日')\n", "line 2: bad byte"},
		{"go test fuzz v1\n[]byte(\"x\"\n", "line 2: want TYPE(VALUE)"},
		{"go test fuzz v1\nbool(maybe)\n", "line 2: bad bool"},
	} {
		if _, err := ParseFuzzFile([]byte(c.src)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseFuzzFile(%q): %v, want an error with %q", c.src, err, c.err)
		}
	}
}
