package gate

import (
	"container/list"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compiling a tool's schema is most of what building a gate costs, and the
// suite builds many gates from the same few configurations (check.All
// builds seven per scenario). A compiled *jsonschema.Schema is read-only
// once Compile returns (Validate keeps its state in a validator of its
// own), so gates share one compiled copy per schema text. A refusal is
// kept too: the same text is refused with the same message.
//
// The cache is bounded (fuzzing makes endless distinct schemas): at most
// schemaCacheEntries entries and schemaCacheBytes bytes of schema text, the
// least recently used going first; a text longer than schemaCacheMaxText
// is compiled every time and never kept.
const (
	schemaCacheEntries = 128
	schemaCacheBytes   = 1 << 20
	schemaCacheMaxText = 64 << 10
)

// schemaKey names a compiled schema: the compiler's URL holds the tool's
// index, which can show in a refusal's text.
type schemaKey struct {
	index int
	text  string
}

type compiledSchema struct {
	key    schemaKey
	schema *jsonschema.Schema
	err    error
}

// schemaLRU is safe for concurrent use.
type schemaLRU struct {
	mu    sync.Mutex
	order *list.List // of *compiledSchema, most recent first
	byKey map[schemaKey]*list.Element
	bytes int
}

var schemas = newSchemaLRU()

func newSchemaLRU() *schemaLRU {
	return &schemaLRU{order: list.New(), byKey: map[schemaKey]*list.Element{}}
}

// compile returns compileSchema(index, text), from the cache when it can.
// Two callers that miss at once both compile; the second one's entry wins,
// and both results are equivalent.
func (c *schemaLRU) compile(index int, text string) (*jsonschema.Schema, error) {
	if len(text) > schemaCacheMaxText {
		return compileSchema(index, text)
	}
	key := schemaKey{index, text}
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		cs := e.Value.(*compiledSchema)
		c.mu.Unlock()
		return cs.schema, cs.err
	}
	c.mu.Unlock()
	sch, err := compileSchema(index, text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.order.Remove(e)
		c.bytes -= len(key.text)
	}
	c.byKey[key] = c.order.PushFront(&compiledSchema{key, sch, err})
	c.bytes += len(text)
	for c.order.Len() > schemaCacheEntries || c.bytes > schemaCacheBytes {
		last := c.order.Back()
		cs := last.Value.(*compiledSchema)
		c.order.Remove(last)
		delete(c.byKey, cs.key)
		c.bytes -= len(cs.key.text)
	}
	return sch, err
}

// len reports the entries and text bytes held, for tests.
func (c *schemaLRU) len() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}
