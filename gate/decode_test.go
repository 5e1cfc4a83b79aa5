package gate

import (
	"reflect"
	"testing"
)

// TestDecodeArgsAgrees: the jsontext decoder gives what encoding/json with
// UseNumber gives, on valid texts of every kind.
func TestDecodeArgsAgrees(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `-0.5e-3`, `1E400`, `true`, `false`, `null`,
		`{"a":[1,"x\u00e9\ud83d\ude00\n\"\\\/",{"b":null,"c":[]}],"d":{},"e":9007199254740993}`,
		" {\n\"k\" : [ true , false ] ,\"\\u0061\":\"v\"} ",
		`[[[[["deep"]]]],{"":""}]`,
	} {
		want, err1 := decodeNumbers([]byte(s))
		got, err2 := decodeArgs([]byte(s))
		if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decodeArgs %#v (%v), decodeNumbers %#v (%v)", s, got, err2, want, err1)
		}
	}
}
