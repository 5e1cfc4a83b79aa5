package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// threeEvents are SSE events of different lengths, so that a stamp that
// counts bytes or reads instead of whole events is caught.
var threeEvents = [][]byte{
	[]byte("data: {\"a\":1}\n\n"),
	[]byte("data: {\"b\":\"" + strings.Repeat("x", 300) + "\"}\n\n"),
	[]byte("data: [DONE]\n\n"),
}

// TestStepperHandsOutOneEventPerRead: each Read of the body gets exactly
// the next event, and the position after it counts exactly the events
// read so far; the end is told only by the read after the last event.
func TestStepperHandsOutOneEventPerRead(t *testing.T) {
	srv := newTestServer(t)
	sess := srv.start(threeEvents, false, nil)
	resp, err := srv.client().Post(srv.URL+"/v1/x", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if d, eof := sess.position(); d != 0 || eof {
		t.Fatalf("before any read: delivered %d eof %v, want 0 false", d, eof)
	}
	buf := make([]byte, 64<<10)
	for i, ev := range threeEvents {
		n, err := resp.Body.Read(buf)
		if err != nil {
			t.Fatalf("read %d: %v", i+1, err)
		}
		if !bytes.Equal(buf[:n], ev) {
			t.Fatalf("read %d got %q, want event %d %q", i+1, buf[:n], i+1, ev)
		}
		if d, eof := sess.position(); d != i+1 || eof {
			t.Errorf("after read %d: delivered %d eof %v, want %d false", i+1, d, eof, i+1)
		}
	}
	if n, err := resp.Body.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("after the last event: read %d, %v; want 0, EOF", n, err)
	}
	if d, eof := sess.position(); d != 3 || !eof {
		t.Errorf("at the end: delivered %d eof %v, want 3 true", d, eof)
	}
}

// TestStepperSmallReadsStampWholeEvents: a reader that takes a few bytes
// at a time is stamped with whole events only: part of an event is not
// delivered.
func TestStepperSmallReadsStampWholeEvents(t *testing.T) {
	srv := newTestServer(t)
	sess := srv.start(threeEvents, false, nil)
	resp, err := srv.client().Post(srv.URL+"/v1/x", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 5)
	got := 0
	for {
		n, err := resp.Body.Read(buf)
		got += n
		sum, whole := 0, 0
		for _, ev := range threeEvents {
			if sum+len(ev) > got {
				break
			}
			sum += len(ev)
			whole++
		}
		if d, _ := sess.position(); d != whole {
			t.Fatalf("after %d bytes: delivered %d, want %d", got, d, whole)
		}
		if err != nil {
			break
		}
	}
}

// TestResetBreaksTheConnection: with reset, the body's events all arrive
// and then the read fails with something other than a clean end.
func TestResetBreaksTheConnection(t *testing.T) {
	srv := newTestServer(t)
	sess := srv.start(threeEvents[:2], true, nil)
	resp, err := srv.client().Post(srv.URL+"/v1/x", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Fatalf("a reset body ended cleanly")
	}
	if !bytes.Equal(b, bytes.Join(threeEvents[:2], nil)) {
		t.Errorf("read %q before the break", b)
	}
	if d, eof := sess.position(); d != 2 || !eof {
		t.Errorf("delivered %d eof %v, want 2 true", d, eof)
	}
}

// TestLaterRequestsGetTheFollowUp: the second request of a run gets the
// follow-up body whole.
func TestLaterRequestsGetTheFollowUp(t *testing.T) {
	srv := newTestServer(t)
	srv.start(threeEvents, false, []byte("data: later\n\n"))
	c := srv.client()
	first, err := c.Post(srv.URL+"/v1/x", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(first.Body)
	first.Body.Close()
	second, err := c.Post(srv.URL+"/v1/x", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer second.Body.Close()
	b, _ := io.ReadAll(second.Body)
	if string(b) != "data: later\n\n" || second.StatusCode != http.StatusOK {
		t.Errorf("second request: %d %q", second.StatusCode, b)
	}
}

// TestRawControlStampsEveryRead: the raw control returns each event as a
// read stamped with the events delivered so far, and the end as an empty
// read with eof.
func TestRawControlStampsEveryRead(t *testing.T) {
	srv := newTestServer(t)
	for _, reset := range []bool{false, true} {
		rp := runOne(srv, idiomNamed(t, "genkit/raw-openai-chat"), request{Run: 7, Peer: "genkit/raw-openai-chat", Events: threeEvents, Reset: reset, TimeoutMs: 5000})
		if rp.Run != 7 || rp.Crash != "" || rp.Hung {
			t.Fatalf("reset %v: %+v", reset, rp)
		}
		if (rp.Error != "") != reset {
			t.Errorf("reset %v: error %q", reset, rp.Error)
		}
		if len(rp.Reads) != len(threeEvents)+1 {
			t.Fatalf("reset %v: %d reads, want %d", reset, len(rp.Reads), len(threeEvents)+1)
		}
		for i, ev := range threeEvents {
			r := rp.Reads[i]
			if !bytes.Equal(r.Bytes, ev) || r.Delivered != i+1 || r.EOF {
				t.Errorf("reset %v: read %d is %q delivered %d eof %v; want event %d, %d, false", reset, i+1, r.Bytes, r.Delivered, r.EOF, i+1, i+1)
			}
		}
		if last := rp.Reads[len(threeEvents)]; len(last.Bytes) != 0 || last.Delivered != 3 || !last.EOF {
			t.Errorf("reset %v: the end read is %+v", reset, last)
		}
	}
}
