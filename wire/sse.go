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
