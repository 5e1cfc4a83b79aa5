package gate

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeArgs decodes strictly valid arguments for the schema and the
// authorization rule, as decodeNumbers does (objects map[string]any,
// arrays []any, numbers json.Number as written, strings unescaped), but
// with jsontext's tokenizer: encoding/json's decoder was the largest cost
// of sealing a long call (issue 4 benchmarks).
func decodeArgs(raw []byte) (any, error) {
	d := jsontext.NewDecoder(bytes.NewReader(raw))
	v, err := decodeValue(d)
	if err != nil {
		return nil, errors.New("decoding failed")
	}
	return v, nil
}

func decodeValue(d *jsontext.Decoder) (any, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		m := map[string]any{}
		for d.PeekKind() != '}' {
			tok, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the next read voids tok
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err = d.ReadToken()
		return m, err
	case '[':
		a := []any{}
		for d.PeekKind() != ']' {
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = d.ReadToken()
		return a, err
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return nil, errors.New("unexpected token")
}
