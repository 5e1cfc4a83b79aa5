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
	"strconv"
	"strings"

	"github.com/sealgate/sealgate/internal/apisize"
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
// called from outside, through an interface the type is passed as. An
// exported alias of a type in a package below this one (gate's PreviewView
// of gate/internal/partial's View) brings that type's exported methods,
// named by the alias: a user calls them as this package's.
func Exported(p Package) ([]Func, error) {
	out, aliases, err := parsePackage(p)
	if err != nil {
		return nil, err
	}
	below := map[string]Package{}
	for _, a := range aliases {
		rest, ok := strings.CutPrefix(a.pkg, p.ImportPath+"/")
		if !ok {
			continue // another package's type: its own package answers for it
		}
		q, seen := below[a.pkg]
		if !seen {
			q = Package{Dir: filepath.Join(p.Dir, filepath.FromSlash(rest)), ImportPath: a.pkg, Show: path.Join(p.Show, rest)}
			below[a.pkg] = q
		}
		fs, _, err := parsePackage(q)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if typ, method, ok := strings.Cut(f.Name, "."); ok && typ == a.target {
				f.Name = a.name + "." + method
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// alias is an exported type alias of a type of another package.
type alias struct{ name, pkg, target string }

// parsePackage reads p's exported functions and methods and its exported
// aliases of other packages' types.
func parsePackage(p Package) ([]Func, []alias, error) {
	bp, err := build.Default.ImportDir(p.Dir, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.Show, err)
	}
	files := append(append([]string{}, bp.GoFiles...), bp.CgoFiles...)
	sort.Strings(files)
	fset := token.NewFileSet()
	var out []Func
	var aliases []alias
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		imports := map[string]string{}
		for _, im := range f.Imports {
			ip, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				continue
			}
			local := path.Base(ip)
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = ip
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					ts, ok := sp.(*ast.TypeSpec)
					if !ok || !ts.Assign.IsValid() || !ts.Name.IsExported() {
						continue
					}
					if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] != "" {
							aliases = append(aliases, alias{ts.Name.Name, imports[x.Name], sel.Sel.Name})
						}
					}
				}
			case *ast.FuncDecl:
				if d.Body == nil || !d.Name.IsExported() {
					continue
				}
				fn := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					fn = apisize.Receiver(d.Recv.List[0].Type) + "." + fn
				}
				from, to := fset.Position(d.Body.Lbrace), fset.Position(d.Body.Rbrace)
				out = append(out, Func{
					Name: fn,
					File: path.Join(p.ImportPath, name),
					Pos:  fmt.Sprintf("%s:%d", path.Join(p.Show, name), fset.Position(d.Pos()).Line),
					From: Point{from.Line, from.Column},
					To:   Point{to.Line, to.Column + 1},
				})
			}
		}
	}
	return out, aliases, nil
}
