package model

import (
	"math"
	"strings"
	"testing"
)

func TestESNumber(t *testing.T) {
	tests := []struct {
		bits uint64
		want string
	}{
		// RFC 8785 appendix B / the JCS reference test file
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, tc := range tests {
		if got := esNumber(math.Float64frombits(tc.bits)); got != tc.want {
			t.Errorf("esNumber(%#x) = %s, want %s", tc.bits, got, tc.want)
		}
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1, "1"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"}, {1e-7, "1e-7"},
		{1e-6, "0.000001"}, {1.5e-7, "1.5e-7"}, {123.456, "123.456"}, {-0.5, "-0.5"},
		{1.2345678901234568e20, "123456789012345680000"}, {1.2345678901234568e21, "1.2345678901234568e+21"},
		{0.1, "0.1"}, {100, "100"}, {4.5, "4.5"}, {2e-3, "0.002"}, {1e30, "1e+30"},
	} {
		if got := esNumber(tc.f); got != tc.want {
			t.Errorf("esNumber(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		// RFC 8785 section 3.2.2
		{`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
		  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
		  "literals": [null, true, false]}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
		// RFC 8785 section 3.2.3: sorted by UTF-16 code units
		{`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",
		  "\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\"," +
				"\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
		{`"\u0061"`, `"a"`},
		{`1.0`, `1`},
		{`-0`, `0`},
		{`-0.0e5`, `0`},
		{`1e21`, `1e+21`},
		{`9007199254740993`, `9007199254740992`},
		{`1e-400`, `0`},
		{`{"b":1,"a":{"d":[1,{"z":1,"y":2}],"c":true}}`, `{"a":{"c":true,"d":[1,{"y":2,"z":1}]},"b":1}`},
		{`"\u0000\u001f\u007f\b\t\n\f\r"`, `"\u0000\u001f` + "\x7f" + `\b\t\n\f\r"`},
		{`"\/"`, `"/"`},
		{` [ ] `, `[]`},
		{`{ }`, `{}`},
	}
	for _, tc := range tests {
		got, err := Canonical([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Canonical(%s) = %s, %v\nwant %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{``, `{"a":1,"a":2}`, `[1,]`, `1e999`, "\"\xff\""} {
		if got, err := Canonical([]byte(bad)); err == nil {
			t.Errorf("Canonical(%q) = %s, want an error", bad, got)
		}
	}
	// the sort uses UTF-16 units, not code points: U+FB33 (one unit,
	// 0xFB33) sorts after U+1F600 (units 0xD83D 0xDE00)
	got, _ := Canonical([]byte("{\"\ufb33\":1,\"\U0001F600\":2}"))
	if !strings.HasPrefix(string(got), "{\"\U0001F600\"") {
		t.Errorf("UTF-16 order: %s", got)
	}
}
