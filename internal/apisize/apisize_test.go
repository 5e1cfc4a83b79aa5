package apisize

import (
	"go/parser"
	"go/token"
	"reflect"
	"testing"
)

func TestExported(t *testing.T) {
	src := `package p
type T struct{ Field int }
type u struct{}
func (T) M() {}
func (*T) N() {}
func (T) m() {}
func (u) M() {}
func F() {}
func f() {}
var V, w = 1, 2
const C = 1
type G[X any] struct{}
func (G[X]) M() {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := fileExported(f)
	want := []string{"T", "T.M", "T.N", "u.M", "F", "V", "C", "G", "G.M"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestExportedNoFiles(t *testing.T) {
	if _, err := Exported(t.TempDir()); err == nil {
		t.Fatal("an empty folder counted without an error")
	}
}
