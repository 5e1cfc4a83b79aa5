package model

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestSchemaCacheShares: runs with the same schema text share one compiled
// schema; a refused text gets the same refusal again.
func TestSchemaCacheShares(t *testing.T) {
	c := newSchemaCache()
	text := `{"type":"object","properties":{"n":{"type":"integer"}}}`
	a, err := c.get(text)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := c.get(text); err != nil || a != b {
		t.Fatalf("second get: %p, %v; want the cached %p", b, err, a)
	}
	bad := `{"$schema":"http://json-schema.org/draft-07/schema#"}`
	_, err1 := c.get(bad)
	_, err2 := c.get(bad)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Fatalf("refusals %v and %v, want one refusal twice", err1, err2)
	}
	if n, _ := c.held(); n != 2 {
		t.Fatalf("%d entries, want 2", n)
	}
}

// TestSchemaCacheBounded: the cache never holds more than its bounds, keeps
// the most recently used text, and never keeps an over-long one.
func TestSchemaCacheBounded(t *testing.T) {
	c := newSchemaCache()
	hot := `{"type":"object","title":"hot"}`
	c.get(hot)
	for i := 0; i < 3*cacheEntries; i++ {
		c.get(fmt.Sprintf(`{"type":"object","title":"%d"}`, i))
		c.get(hot)
	}
	if n, size := c.held(); n > cacheEntries || size > cacheTextBytes {
		t.Fatalf("%d entries, %d bytes: over %d, %d", n, size, cacheEntries, cacheTextBytes)
	}
	if c.index[hot] == nil {
		t.Fatal("the most recently used text was pushed out")
	}
	if c.index[`{"type":"object","title":"0"}`] != nil {
		t.Fatal("the least recently used text is still held")
	}
	long := `{"type":"object","title":"` + strings.Repeat("x", cacheLongestText) + `"}`
	if _, err := c.get(long); err != nil {
		t.Fatal(err)
	}
	if c.index[long] != nil {
		t.Fatal("an over-long text was kept")
	}
	for i := 0; i < 40; i++ {
		c.get(fmt.Sprintf(`{"type":"object","title":"%d%s"}`, i, strings.Repeat("y", 32<<10)))
	}
	if n, size := c.held(); size > cacheTextBytes {
		t.Fatalf("%d entries hold %d bytes, over %d", n, size, cacheTextBytes)
	}
}

// TestSchemaCacheConcurrent: concurrent runs share and validate with the
// same compiled schemas (run with -race).
func TestSchemaCacheConcurrent(t *testing.T) {
	c := newSchemaCache()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				s, err := c.get(fmt.Sprintf(`{"type":"object","required":["k%d"]}`, (g+i)%5))
				if err != nil {
					t.Error(err)
					return
				}
				if err := validate(s, map[string]any{"k0": "v"}); (err == nil) != ((g+i)%5 == 0) {
					t.Errorf("validation of a shared schema: %v", err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}
