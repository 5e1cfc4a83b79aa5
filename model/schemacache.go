package model

import (
	"container/list"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The model compiles every tool's schema on each Run, and the suite runs
// the model twice per checked scenario on the same few configurations, so
// runs share one compiled schema per text (the model's own cache: it
// shares no code with the gate). jsonschema/v6 does not change a Schema
// after Compile (Validate works in a validator of its own), so one copy
// serves concurrent runs. Refusals are kept as well, with their message.
//
// Bounded, least recently used first out: at most cacheEntries texts and
// cacheTextBytes bytes of them; a text longer than cacheLongestText is
// compiled on every run and not kept.
const (
	cacheEntries     = 128
	cacheTextBytes   = 1 << 20
	cacheLongestText = 64 << 10
)

type cachedSchema struct {
	text   string
	schema *jsonschema.Schema
	err    error
}

type schemaCache struct {
	mu     sync.Mutex
	recent *list.List // of *cachedSchema, the most recently used in front
	index  map[string]*list.Element
	size   int // bytes of text held
}

var compiled = newSchemaCache()

func newSchemaCache() *schemaCache {
	return &schemaCache{recent: list.New(), index: map[string]*list.Element{}}
}

// get returns compileSchema(text), compiling only on a miss.
func (c *schemaCache) get(text string) (*jsonschema.Schema, error) {
	if len(text) > cacheLongestText {
		return compileSchema(text)
	}
	c.mu.Lock()
	if e := c.index[text]; e != nil {
		c.recent.MoveToFront(e)
		hit := e.Value.(*cachedSchema)
		c.mu.Unlock()
		return hit.schema, hit.err
	}
	c.mu.Unlock()
	s, err := compileSchema(text) // outside the lock: compiling is slow
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.index[text]; e != nil { // compiled meanwhile by another run
		c.recent.MoveToFront(e)
		return s, err
	}
	c.index[text] = c.recent.PushFront(&cachedSchema{text, s, err})
	c.size += len(text)
	for c.recent.Len() > cacheEntries || c.size > cacheTextBytes {
		old := c.recent.Remove(c.recent.Back()).(*cachedSchema)
		delete(c.index, old.text)
		c.size -= len(old.text)
	}
	return s, err
}

// held reports the entries and text bytes kept, for tests.
func (c *schemaCache) held() (entries, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.recent.Len(), c.size
}
