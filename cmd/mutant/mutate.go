package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// Mutant names one token change: gremlins' mutator Type applied to the
// operator at File:Line:Col (columns count bytes from 1, as gremlins and
// go/token do).
type Mutant struct {
	File      string
	Line, Col int
	Type      string
}

func (m Mutant) String() string {
	return fmt.Sprintf("%s:%d:%d:%s", m.File, m.Line, m.Col, m.Type)
}

// mutators are gremlins v0.6.0's default token swaps, by mutator name.
var mutators = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE": {token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO,
		token.QUO: token.MUL, token.REM: token.MUL},
	"CONDITIONALS_BOUNDARY": {token.GTR: token.GEQ, token.GEQ: token.GTR, token.LSS: token.LEQ,
		token.LEQ: token.LSS},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.NEQ: token.EQL, token.LEQ: token.GTR,
		token.GTR: token.LEQ, token.LSS: token.GEQ, token.GEQ: token.LSS},
	"INCREMENT_DECREMENT": {token.INC: token.DEC, token.DEC: token.INC},
	"INVERT_NEGATIVES":    {token.SUB: token.ADD},
}

// ParseMutant reads FILE:LINE:COL:TYPE.
func ParseMutant(s string) (Mutant, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 4 {
		return Mutant{}, fmt.Errorf("%q: want FILE:LINE:COL:TYPE", s)
	}
	line, err1 := strconv.Atoi(parts[1])
	col, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return Mutant{}, fmt.Errorf("%q: LINE and COL must be positive numbers", s)
	}
	if _, ok := mutators[parts[3]]; !ok {
		return Mutant{}, fmt.Errorf("%q: unknown mutator %q", s, parts[3])
	}
	return Mutant{File: parts[0], Line: line, Col: col, Type: parts[3]}, nil
}

// Apply returns src with the mutant applied. It fails when no operator at
// the position is one the mutator changes.
func Apply(src []byte, m Mutant) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, m.File, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	swaps := mutators[m.Type]
	var hit *token.Token
	ast.Inspect(f, func(n ast.Node) bool {
		var tok *token.Token
		var pos token.Pos
		switch n := n.(type) {
		case *ast.BinaryExpr:
			tok, pos = &n.Op, n.OpPos
		case *ast.UnaryExpr:
			tok, pos = &n.Op, n.OpPos
		case *ast.IncDecStmt:
			tok, pos = &n.Tok, n.TokPos
		default:
			return true
		}
		if p := fset.Position(pos); p.Line == m.Line && p.Column == m.Col {
			if _, ok := swaps[*tok]; ok {
				hit = tok
			}
		}
		return true
	})
	if hit == nil {
		return nil, fmt.Errorf("%s: no operator there that %s changes", m, m.Type)
	}
	*hit = swaps[*hit]
	var out bytes.Buffer
	if err := format.Node(&out, fset, f); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
