package stdiogate_test

import (
	"testing"

	"github.com/sealgate/sealgate/internal/apisize"
)

// TestExportedIdentifiers holds the stdio package to what a user needs (a client, Serve and its backend): every
// exported name is one a user meets, and one the project must keep.
func TestExportedIdentifiers(t *testing.T) {
	const most = 15
	names, err := apisize.Exported(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) > most {
		t.Fatalf("package stdiogate exports %d identifiers, at most %d allowed: %v", len(names), most, names)
	}
	t.Logf("%d exported identifiers: %v", len(names), names)
}
