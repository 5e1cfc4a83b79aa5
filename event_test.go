package sealgate

import (
	"reflect"
	"testing"
)

// TestEventEqual: every field of an event counts, and a nil byte string
// equals an empty one.
func TestEventEqual(t *testing.T) {
	e := Event{Kind: End, Attempt: "r1", Turn: "t1", Item: "0", Call: "c1", Tool: "get",
		Bytes: []byte("x"), Final: []byte(`{}`), HasFinal: true, Status: Complete, Key: "k", OK: true}
	if !e.Equal(e) {
		t.Fatalf("%v is not equal to itself", e)
	}
	if a, b := (Event{Kind: Delta}), (Event{Kind: Delta, Bytes: []byte{}, Final: []byte{}}); !a.Equal(b) || !b.Equal(a) {
		t.Error("a nil byte string differs from an empty one")
	}
	v := reflect.ValueOf(e)
	for i := range v.NumField() {
		o := e
		f := reflect.ValueOf(&o).Elem().Field(i)
		f.Set(reflect.Zero(f.Type()))
		if e.Equal(o) || o.Equal(e) {
			t.Errorf("Equal ignores the field %s", v.Type().Field(i).Name)
		}
	}
}
