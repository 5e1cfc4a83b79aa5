// Package apisize counts a package's exported API, so that a test can hold
// a public package to a size: the fewer names a user meets, the easier the
// package is to learn and the less it promises to keep.
package apisize

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Exported lists the exported identifiers of the package in dir: its
// top-level types, functions, variables and constants, and every exported
// method it declares ("T.M"), on an unexported type too (a method such as
// session.Feed is reachable through an interface, and is code the package
// must keep to its contract), read from its non-test .go files. Struct
// fields and interface methods are not counted: they belong to their type.
func Exported(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var names []string
	files := 0
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files++
		names = append(names, fileExported(f)...)
	}
	if files == 0 {
		return nil, fmt.Errorf("apisize: no Go files in %s", dir)
	}
	sort.Strings(names)
	return names, nil
}

// fileExported lists the exported identifiers one file declares.
func fileExported(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				names = append(names, d.Name.Name)
				continue
			}
			names = append(names, Receiver(d.Recv.List[0].Type)+"."+d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names = append(names, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

// Receiver is the name of a method's receiver type, without pointer,
// parentheses or type parameters: Gate for *Gate, Set for Set[K]; the
// suite's tools that list exported methods share it.
func Receiver(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
