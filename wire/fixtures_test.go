package wire

import (
	"os"
	"path/filepath"
)

// fixturesDir finds the vendor captures, read in place and never copied:
// $SEALGATE_VENDOR_FIXTURES, or ../shared/vendor-fixtures beside the
// repository (../../shared/vendor-fixtures from this package directory).
func fixturesDir() (string, bool) {
	dir := os.Getenv("SEALGATE_VENDOR_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "vendor-fixtures")
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}
