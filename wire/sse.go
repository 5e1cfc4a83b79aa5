package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// frame is one vendor event: an SSE event (its event name and joined data
// lines) or one JSONL line.
type frame struct {
	event      string
	data       []byte
	line       int   // 1-based line where the frame started
	offset     int64 // byte offset of that line
	terminated bool  // ended by its blank line (SSE) or LF (JSONL)
}

// posError locates a framing or decoding error in the body.
type posError struct {
	Line   int
	Offset int64
	Msg    string
	Err    error // the decoder's error, when the message is its
}

func (e *posError) Error() string {
	msg := e.Msg
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("line %d (byte %d): %s", e.Line, e.Offset, msg)
}

func (e *posError) Unwrap() error { return e.Err }

// frameReader is the strict SSE reader shared by the decoders (and the
// JSONL reader for fixtures stored one payload per line). A line longer than
// the limit is an error, never an end of stream.
type frameReader struct {
	r        *bufio.Reader
	jsonl    bool
	maxLine  int
	maxEvent int
	line     int   // lines read
	off      int64 // bytes read
	started  bool
	done     bool
	buf      []byte

	array  bool // JSONArray framing
	opened bool // its [ was read
	closed bool // its ] was read: the body's own end
	elems  int  // elements read
}

func newFrameReader(r io.Reader, jsonl bool, maxLine, maxEvent int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), jsonl: jsonl, maxLine: maxLine, maxEvent: maxEvent}
}

// readLine returns the next line without its ending. eol is false for a
// last line that ended with the stream. SSE accepts LF, CRLF and a lone CR;
// JSONL splits on LF only (a CR before it is removed).
func (fr *frameReader) readLine() (line []byte, start int64, eol bool, err error) {
	fr.buf = fr.buf[:0]
	start = fr.off
	for {
		c, err := fr.r.ReadByte()
		if err == io.EOF {
			if len(fr.buf) == 0 {
				return nil, start, false, io.EOF
			}
			fr.line++
			return fr.buf, start, false, nil
		}
		if err != nil {
			return nil, start, false, err
		}
		fr.off++
		if !fr.started {
			fr.started = true
			// A byte order mark may open an SSE stream (WHATWG) and is
			// removed; anywhere else it is data.
			if c == 0xEF {
				if p, _ := fr.r.Peek(2); bytes.Equal(p, []byte{0xBB, 0xBF}) {
					fr.r.Discard(2)
					fr.off += 2
					start = fr.off
					continue
				}
			}
		}
		switch {
		case c == '\n':
			fr.line++
			if fr.jsonl && len(fr.buf) > 0 && fr.buf[len(fr.buf)-1] == '\r' {
				fr.buf = fr.buf[:len(fr.buf)-1]
			}
			return fr.buf, start, true, nil
		case c == '\r' && !fr.jsonl:
			fr.line++
			if p, _ := fr.r.Peek(1); len(p) == 1 && p[0] == '\n' {
				fr.r.Discard(1)
				fr.off++
			}
			return fr.buf, start, true, nil
		}
		if len(fr.buf) >= fr.maxLine {
			return nil, start, false, &posError{Line: fr.line + 1, Offset: start, Msg: fmt.Sprintf("line longer than %d bytes", fr.maxLine)}
		}
		fr.buf = append(fr.buf, c)
	}
}

// next returns the next frame, or io.EOF.
func (fr *frameReader) next() (frame, error) {
	if fr.done {
		return frame{}, io.EOF
	}
	if fr.array {
		return fr.nextElem()
	}
	if fr.jsonl {
		for {
			line, start, eol, err := fr.readLine()
			if err != nil {
				if err == io.EOF {
					fr.done = true
				}
				return frame{}, err
			}
			if len(bytes.TrimLeft(line, " \t\r")) == 0 {
				continue
			}
			return frame{data: append([]byte(nil), line...), line: fr.line, offset: start, terminated: eol}, nil
		}
	}
	var f frame
	var data []byte
	haveData := false
	for {
		line, start, eol, err := fr.readLine()
		if err == io.EOF {
			fr.done = true
			if haveData {
				f.data, f.terminated = data, false
				return f, nil
			}
			return frame{}, io.EOF
		}
		if err != nil {
			return frame{}, err
		}
		if f.line == 0 {
			f.line, f.offset = fr.line, start
		}
		if len(line) == 0 {
			if haveData {
				f.data, f.terminated = data, true
				return f, nil
			}
			f = frame{} // an event with no data line is not dispatched (WHATWG)
			continue
		}
		if line[0] == ':' {
			continue // comment, used as keep-alive padding
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			if haveData {
				data = append(data, '\n')
			}
			if len(data)+len(value) > fr.maxEvent {
				return frame{}, &posError{Line: fr.line, Offset: start, Msg: fmt.Sprintf("event data longer than %d bytes", fr.maxEvent)}
			}
			data = append(data, value...)
			haveData = true
		case "event":
			f.event = string(value)
		case "id", "retry":
			// Reconnection hints; a decoder never resumes a stream.
		default:
			return frame{}, &posError{Line: fr.line, Offset: start, Msg: fmt.Sprintf("not an SSE field line: %s", clip(line))}
		}
		if !eol {
			// The body ended inside this line; deliver what was gathered.
			fr.done = true
			if haveData {
				f.data, f.terminated = data, false
				return f, nil
			}
			return frame{}, io.EOF
		}
	}
}

// clip shortens b for an error message.
func clip(b []byte) string {
	const n = 60
	if len(b) > n {
		return fmt.Sprintf("%q...", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// readByte reads one byte of a JSON array stream, counting lines.
func (fr *frameReader) readByte() (byte, error) {
	c, err := fr.r.ReadByte()
	if err != nil {
		return 0, err
	}
	fr.off++
	if c == '\n' {
		fr.line++
	}
	return c, nil
}

// skipBlanks skips JSON whitespace and returns the next byte.
func (fr *frameReader) skipBlanks() (byte, error) {
	for {
		c, err := fr.readByte()
		if err != nil || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, err
		}
	}
}

// nextElem returns the next element of a JSON array stream ([ obj , obj
// ... ]), each an event object, possibly spread over lines. A body that
// ends inside an element delivers it unterminated (a disconnection); one
// that ends between elements sets no closed (the ] never came).
func (fr *frameReader) nextElem() (frame, error) {
	bad := func(msg string) (frame, error) {
		return frame{}, &posError{Line: fr.line + 1, Offset: fr.off - 1, Msg: msg}
	}
	c, err := fr.skipBlanks()
	if err == io.EOF {
		fr.done = true
		return frame{}, io.EOF
	}
	if err != nil {
		return frame{}, err
	}
	if !fr.opened {
		if c != '[' {
			return bad(fmt.Sprintf("a JSON array stream starts with '[', not %q", c))
		}
		fr.opened = true
		if c, err = fr.skipBlanks(); err == io.EOF {
			fr.done = true
			return frame{}, io.EOF
		} else if err != nil {
			return frame{}, err
		}
	}
	if c == ']' {
		if c, err := fr.skipBlanks(); err != io.EOF {
			if err != nil {
				return frame{}, err
			}
			return bad(fmt.Sprintf("%q after the stream's closing ']'", c))
		}
		fr.done, fr.closed = true, true
		return frame{}, io.EOF
	}
	if fr.elems > 0 {
		if c != ',' {
			return bad(fmt.Sprintf("',' or ']' was expected between the stream's elements, not %q", c))
		}
		if c, err = fr.skipBlanks(); err == io.EOF {
			fr.done = true
			return frame{}, io.EOF
		} else if err != nil {
			return frame{}, err
		}
	}
	if c != '{' {
		return bad(fmt.Sprintf("an element of the stream is an object, not %q", c))
	}
	f := frame{line: fr.line + 1, offset: fr.off - 1}
	data := []byte{'{'}
	depth, inStr, esc := 1, false, false
	for depth > 0 {
		c, err := fr.readByte()
		if err == io.EOF {
			fr.done = true
			f.data = data
			return f, nil // cut inside the element
		}
		if err != nil {
			return frame{}, err
		}
		if len(data) >= fr.maxEvent {
			return frame{}, &posError{Line: f.line, Offset: f.offset, Msg: fmt.Sprintf("event data longer than %d bytes", fr.maxEvent)}
		}
		data = append(data, c)
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	fr.elems++
	f.data, f.terminated = data, true
	return f, nil
}
