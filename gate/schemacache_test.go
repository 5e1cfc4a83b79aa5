package gate

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestSchemaCacheShares: a second gate with the same schema text gets the
// compiled schema of the first; a refused text is refused again with the
// same message; another index is another entry.
func TestSchemaCacheShares(t *testing.T) {
	c := newSchemaLRU()
	text := `{"type":"object","properties":{"path":{"type":"string"}}}`
	a, err := c.compile(0, text)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.compile(0, text)
	if err != nil || a != b {
		t.Fatalf("second compile: %p, %v; want the cached %p", b, err, a)
	}
	if other, _ := c.compile(1, text); other == a {
		t.Fatal("tool 1 got tool 0's schema: its URL differs")
	}
	bad := `{"$ref":"https://example.com/x.json"}`
	_, err1 := c.compile(0, bad)
	_, err2 := c.compile(0, bad)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Fatalf("refusals %v and %v, want the same refusal twice", err1, err2)
	}
	if n, _ := c.len(); n != 3 {
		t.Fatalf("%d entries, want 3", n)
	}
}

// TestSchemaCacheBounded: distinct texts past the bounds push out the
// least recently used; a text over the size limit is never kept.
func TestSchemaCacheBounded(t *testing.T) {
	c := newSchemaLRU()
	first := `{"type":"object","title":"kept"}`
	c.compile(0, first)
	for i := 0; i < 3*schemaCacheEntries; i++ {
		c.compile(0, fmt.Sprintf(`{"type":"object","title":"%d"}`, i))
		c.compile(0, first) // used again and again: stays
	}
	n, size := c.len()
	if n > schemaCacheEntries || size > schemaCacheBytes {
		t.Fatalf("%d entries, %d bytes: over the bounds %d, %d", n, size, schemaCacheEntries, schemaCacheBytes)
	}
	if _, ok := c.byKey[schemaKey{0, first}]; !ok {
		t.Fatal("the most recently used text was pushed out")
	}
	if _, ok := c.byKey[schemaKey{0, `{"type":"object","title":"0"}`}]; ok {
		t.Fatal("the least recently used text is still held")
	}
	long := `{"type":"object","title":"` + strings.Repeat("x", schemaCacheMaxText) + `"}`
	if _, err := c.compile(0, long); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.byKey[schemaKey{0, long}]; ok {
		t.Fatal("a text over the size limit was kept")
	}
	for i := 0; i < 40; i++ { // texts of 32 KiB: the byte bound bites first
		c.compile(0, fmt.Sprintf(`{"type":"object","title":"%d%s"}`, i, strings.Repeat("y", 32<<10)))
	}
	if n, size := c.len(); size > schemaCacheBytes {
		t.Fatalf("%d entries hold %d bytes, over %d", n, size, schemaCacheBytes)
	}
}

// TestSchemaCacheConcurrent: gates built and fed at once share compiled
// schemas (run with -race).
func TestSchemaCacheConcurrent(t *testing.T) {
	c := newSchemaLRU()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				s, err := c.compile(0, fmt.Sprintf(`{"type":"object","required":["k%d"]}`, (g+i)%5))
				if err != nil {
					t.Error(err)
					return
				}
				if err := s.Validate(map[string]any{"k0": "v"}); (err == nil) != ((g+i)%5 == 0) {
					t.Errorf("validation of a shared schema: %v", err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}
