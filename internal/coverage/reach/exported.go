package reach

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Func is one exported function or method with a body, and where its body
// lies in its file (the span its coverage blocks fall in).
type Func struct {
	Name string // "New", "Gate.Ack" (pointer or value receiver alike)
	// File is the file's path as the coverage profile names it (import
	// path and file name); Pos is dir-relative file:line, for people.
	File string
	Pos  string
	// From and To are the body's braces, as line and column.
	From, To Point
}

// Point is a line and column in a file, 1-based, as profiles count them.
type Point struct{ Line, Col int }

// before reports whether p comes before q.
func (p Point) before(q Point) bool { return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col }

// Package is a package's folder and its import path.
type Package struct {
	Dir        string // on disk
	ImportPath string // as coverage profiles name its files
	Show       string // its folder as reports show it ("gate")
}

// Exported parses the package's non-test Go files that build on this
// platform and returns its exported functions and methods, in file and
// line order. A method counts when its name is exported, whatever its
// receiver's type: an exported method of an unexported type is still
// called from outside, through an interface the type is passed as.
func Exported(p Package) ([]Func, error) {
	bp, err := build.Default.ImportDir(p.Dir, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Show, err)
	}
	files := append(append([]string{}, bp.GoFiles...), bp.CgoFiles...)
	sort.Strings(files)
	fset := token.NewFileSet()
	var out []Func
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !fd.Name.IsExported() {
				continue
			}
			fn := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				fn = receiverName(fd.Recv.List[0].Type) + "." + fn
			}
			from, to := fset.Position(fd.Body.Lbrace), fset.Position(fd.Body.Rbrace)
			out = append(out, Func{
				Name: fn,
				File: path.Join(p.ImportPath, name),
				Pos:  fmt.Sprintf("%s:%d", path.Join(p.Show, name), fset.Position(fd.Pos()).Line),
				From: Point{from.Line, from.Column},
				To:   Point{to.Line, to.Column + 1},
			})
		}
	}
	return out, nil
}

// receiverName is the receiver's type name without pointer or type
// parameters: Gate for *Gate, Set for Set[K].
func receiverName(e ast.Expr) string {
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
			return strings.TrimSpace(fmt.Sprint(e))
		}
	}
}
