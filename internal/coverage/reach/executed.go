package reach

import (
	"fmt"
	"os"

	"golang.org/x/tools/cover"
)

// ReadProfiles reads go test coverage profiles (-coverprofile), each error
// naming its file.
func ReadProfiles(paths []string) ([]*cover.Profile, error) {
	var out []*cover.Profile
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		ps, err := cover.ParseProfilesFromReader(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("coverage profile %s: %w", p, err)
		}
		out = append(out, ps...)
	}
	return out, nil
}

// Unexecuted returns the functions of fs that no block of the profiles
// executed. A function none of whose blocks is in any profile is an error,
// not a verdict: the profiles were not made over its package (-coverpkg) or
// its file changed since (go's cover tool gives every body a block, an
// empty one included).
func Unexecuted(profiles []*cover.Profile, fs []Func) ([]Func, error) {
	byFile := map[string][]cover.ProfileBlock{}
	for _, p := range profiles {
		byFile[p.FileName] = append(byFile[p.FileName], p.Blocks...)
	}
	var out []Func
	var missing []string
	for _, f := range fs {
		seen, ran := false, false
		for _, b := range byFile[f.File] {
			start, end := Point{b.StartLine, b.StartCol}, Point{b.EndLine, b.EndCol}
			if start.before(f.From) || f.To.before(end) {
				continue
			}
			seen = true
			if b.Count > 0 {
				ran = true
				break
			}
		}
		switch {
		case !seen:
			missing = append(missing, f.Pos+" "+f.Name)
		case !ran:
			out = append(out, f)
		}
	}
	if len(missing) > 0 {
		return out, fmt.Errorf("the coverage profiles have no block in the body of %d function(s) (made without -coverpkg over their package, or before their file changed): %v", len(missing), missing)
	}
	return out, nil
}
