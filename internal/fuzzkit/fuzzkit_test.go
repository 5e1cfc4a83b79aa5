package fuzzkit

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestLayout pins Encode to the shim's layout as go-fuzz-headers reads it
// (consumer.go: GetBytes, GetByte, GetBool, GetUint16, GetUint64) and
// Decode to its reading, lengths taken modulo what is left included.
func TestLayout(t *testing.T) {
	got, err := Encode([]byte("ab"), uint8(7), true, false, uint16(0x0102), uint64(0x0102030405060708), int64(-1), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 0, 0, 2, 'a', 'b', 7, 0, 1, 1, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 1, 255, 255, 255, 255, 255, 255, 255, 255, 1, 0, 0, 0, 1, 0}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode = %v\nwant     %v", got, want)
	}
	like := []any{[]byte(nil), uint8(0), false, false, uint16(0), uint64(0), int64(0), ""}
	args, ok, err := Decode(got, like...)
	wantArgs := []any{[]byte("ab"), uint8(7), true, false, uint16(0x0102), uint64(0x0102030405060708), int64(-1), "\x00"}
	if err != nil || !ok || !reflect.DeepEqual(args, wantArgs) {
		t.Fatalf("Decode = %v, %v, %v; want %v", args, ok, err, wantArgs)
	}
	for _, c := range []struct {
		in   []byte
		like []any
		want []any
	}{
		// An even byte after a number: little-endian.
		{[]byte{1, 2, 0}, []any{uint16(0)}, []any{uint16(0x0201)}},
		// Length 0 means 30, taken modulo the 3 bytes left: 0.
		{[]byte{0, 0, 0, 0, 'x', 'y', 'z'}, []any{[]byte(nil)}, []any{[]byte{}}},
		// Length 5 of 3 left: 2.
		{[]byte{0, 0, 0, 5, 'x', 'y', 'z'}, []any{[]byte(nil)}, []any{[]byte("xy")}},
		// Length exactly what is left: all of it.
		{[]byte{0, 0, 0, 3, 'x', 'y', 'z'}, []any{[]byte(nil)}, []any{[]byte("xyz")}},
	} {
		args, ok, err := Decode(c.in, c.like...)
		if err != nil || !ok || !reflect.DeepEqual(args, c.want) {
			t.Errorf("Decode(%v) = %v, %v, %v; want %v", c.in, args, ok, err, c.want)
		}
	}
	for _, short := range [][]byte{nil, {0, 0, 0, 1}, {0, 0}} {
		if _, ok, err := Decode(short, []byte(nil)); ok || err != nil {
			t.Errorf("Decode(%v) = ok %v, %v; want a skip", short, ok, err)
		}
	}
	if _, err := Encode(3.5); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("Encode(3.5): %v, want an error naming the type", err)
	}
}

// TestExecsLeaveTheProcess: counts reach the directory ExecsEnv names by
// the periodic write alone (a go fuzz worker is killed, it does not
// flush), and ReadExecs sums files by target.
func TestExecsLeaveTheProcess(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ExecsEnv, dir) // before the first Add starts the writer
	a, b := NewCounter("FuzzA"), NewCounter("FuzzB")
	for range 1000 {
		a.Add()
	}
	b.Add()
	// Another process's file.
	if err := os.WriteFile(filepath.Join(dir, "1.execs"), []byte("FuzzA 5 2000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := ReadExecs(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 2 && got[0].Execs == 1005 && got[0].Processes == 2 && got[1].Execs == 1 && got[0].CPU > 2*time.Second {
			if r := got[0].PerCPUSecond(); r <= 0 || r > 1005/2.0 {
				t.Fatalf("PerCPUSecond = %v", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ReadExecs = %+v, want FuzzA 1005 from 2 processes, FuzzB 1", got)
		}
		time.Sleep(FlushEvery / 2)
	}
	if err := os.WriteFile(filepath.Join(dir, "2.execs"), []byte("FuzzA x 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadExecs(dir); err == nil || !strings.Contains(err.Error(), "2.execs:1") {
		t.Fatalf("a bad line: %v, want an error naming file and line", err)
	}
}
