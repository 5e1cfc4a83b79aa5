package check

import (
	"fmt"
	"strings"

	"github.com/sealgate/sealgate"
)

// Mismatch is a difference between two decision lists; Diff(m.AName, m.A,
// m.BName, m.B) shows it line by line.
type Mismatch struct {
	AName, BName string
	A, B         []sealgate.Decision
	Index        int // first index where they differ
}

func (m *Mismatch) Error() string {
	line := func(ds []sealgate.Decision) string {
		if m.Index < len(ds) {
			return ds[m.Index].String()
		}
		return "(nothing)"
	}
	return fmt.Sprintf("decision %d differs: %s says %s; %s says %s",
		m.Index+1, m.AName, line(m.A), m.BName, line(m.B))
}

// Compare returns nil when a and b are the same decision lists, and a
// *Mismatch naming the first difference otherwise.
func Compare(aName string, a []sealgate.Decision, bName string, b []sealgate.Decision) error {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if !a[i].Equal(b[i]) {
			return &Mismatch{aName, bName, a, b, i}
		}
	}
	if len(a) != len(b) {
		return &Mismatch{aName, bName, a, b, n}
	}
	return nil
}

// maxDiffCells bounds the quadratic table of Diff; past it, Diff prints
// both lists whole from the first difference.
const maxDiffCells = 4 << 20

// Diff is a line diff of two decision lists: "  " both, "- " only in a,
// "+ " only in b. Refused lines compare by kind only, like Decision.Equal.
func Diff(aName string, a []sealgate.Decision, bName string, b []sealgate.Decision) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", aName, bName)
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for _, d := range a {
			sb.WriteString("- " + d.String() + "\n")
		}
		for _, d := range b {
			sb.WriteString("+ " + d.String() + "\n")
		}
		return sb.String()
	}
	// lcs[i][j] = length of the longest common subsequence of a[i:], b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i].Equal(b[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i].Equal(b[j]):
			sb.WriteString("  " + a[i].String() + "\n")
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			sb.WriteString("+ " + b[j].String() + "\n")
			j++
		default:
			sb.WriteString("- " + a[i].String() + "\n")
			i++
		}
	}
	return sb.String()
}
