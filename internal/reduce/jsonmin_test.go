package reduce

import (
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

func TestParseValueKeepsLiteralsAndRefusesBrokenText(t *testing.T) {
	for in, want := range map[string]string{
		` { "\u006e" : 1.50e+2 , "b" : [ true , null , "x\"y" ] } `: `{"\u006e":1.50e+2,"b":[true,null,"x\"y"]}`,
		`[]`:   `[]`,
		`"s"`:  `"s"`,
		`-0.0`: `-0.0`,
	} {
		v, ok := parseValue([]byte(in))
		if !ok {
			t.Errorf("parseValue(%q) refused", in)
			continue
		}
		n := noEdit
		if got := string(v.render(&n)); got != want {
			t.Errorf("parseValue(%q) renders %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{``, `{`, `{"a":}`, `{"a" 1}`, `[1,]`, `"abc`, `{"a":1}x`, `tru`, `{1:2}`, `"\`,
		strings.Repeat("[", maxValueDepth+2) + strings.Repeat("]", maxValueDepth+2)} {
		if _, ok := parseValue([]byte(in)); ok {
			t.Errorf("parseValue(%q) accepted a text that is not one whole value", in)
		}
	}
}

// TestRenderEditsAreShorter: every edit of a value gives a different text
// no longer than the compact one, and the count of edits is exact.
func TestRenderEditsAreShorter(t *testing.T) {
	v, ok := parseValue([]byte(`{"path":"notes.md","n":[12,{"k":"v"}],"t":true}`))
	if !ok {
		t.Fatal("refused")
	}
	n := noEdit
	compact := string(v.render(&n))
	edits := noEdit - n
	// object emptied, 3 members removed, 3 names, 1 string, array emptied,
	// 2 elements removed, 1 number, inner object emptied, its member
	// removed, its name, its string
	if edits != 15 {
		t.Errorf("%d edits, want 15", edits)
	}
	seen := map[string]bool{}
	for k := 0; k < edits; k++ {
		e := k
		got := string(v.render(&e))
		if len(got) > len(compact) || got == compact || seen[got] {
			t.Errorf("edit %d gives %q (compact %q)", k, got, compact)
		}
		seen[got] = true
	}
	e := edits
	if got := string(v.render(&e)); got != compact {
		t.Errorf("an edit number past the last changes the text: %q", got)
	}
}

// TestParseValueOnBrokenText: every prefix of some texts, and each with
// one byte deleted, is refused or parsed into a value whose compact form
// and every edit are no longer than the text: no panic, no growth.
func TestParseValueOnBrokenText(t *testing.T) {
	for _, text := range []string{`{"a":[1,"x",{"b":null}],"c":-1.5e+3}`, `{"a":"\"\\","b":[[[]]]}`, ` [ true , false ] `} {
		var inputs []string
		for i := 0; i <= len(text); i++ {
			inputs = append(inputs, text[:i], text[:i]+text[min(i+1, len(text)):])
		}
		for _, in := range inputs {
			v, ok := parseValue([]byte(in))
			if !ok {
				continue
			}
			n := noEdit
			compact := v.render(&n)
			if len(compact) > len(in) {
				t.Fatalf("compact %q longer than %q", compact, in)
			}
			for k := 0; k < noEdit-n; k++ {
				e := k
				if got := v.render(&e); len(got) > len(compact) {
					t.Fatalf("edit %d of %q gives a longer %q", k, compact, got)
				}
			}
		}
	}
}

// TestStripKeepsSpacesInsideStrings: a call's deltas are one text, so a
// space in a string that a fragment boundary splits (even right after a
// backslash) stays, and the spaces between tokens go.
func TestStripKeepsSpacesInsideStrings(t *testing.T) {
	evs := []sealgate.Event{
		sealgate.OpenEvent("a", "t"), sealgate.BeginEvent("a", "0", "c", "f"),
		sealgate.DeltaEvent("a", "0", []byte("{ \"a b\\")), sealgate.DeltaEvent("a", "0", []byte("\" c\" :\r\n")),
		sealgate.DeltaEvent("a", "0", []byte(" \"d  e\" }")),
		sealgate.EndFinalEvent("a", "0", []byte("{ \"a b\\\" c\" :\r\n \"d  e\" }")),
	}
	out := stripped(evs, func(int) bool { return true })
	var got string
	for _, e := range out {
		got += string(e.Bytes)
	}
	if want := `{"a b\" c":"d  e"}`; got != want || string(out[5].Final) != want {
		t.Errorf("stripped deltas %q and final %q, want %q", got, out[5].Final, want)
	}
	if HasPadding(out[2].Bytes, out[3].Bytes, out[4].Bytes) || !HasPadding(evs[2].Bytes, evs[3].Bytes, evs[4].Bytes) {
		t.Error("HasPadding does not tell the padded call from the stripped one")
	}
}

func TestRenameMemberThroughConfig(t *testing.T) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "f", Schema: `{"required":["token"]}`, Secrets: []string{"token", "/auth/token", "/x~1token"},
		Allow: &sealgate.Allow{Field: "token"}, Idem: sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"token"}}}}
	evs := []sealgate.Event{sealgate.DeltaEvent("a", "0", []byte(`{"token":"token","auth":{"token"`))}
	c2, e2 := renameMember(cfg, evs, "token", "a")
	tl := c2.Tools[0]
	if got := string(e2[0].Bytes); got != `{"a":"a","auth":{"a"` {
		t.Errorf("fragment %q", got)
	}
	if tl.Schema != `{"required":["a"]}` || strings.Join(tl.Secrets, " ") != "a /auth/a /x~1token" || tl.Allow.Field != "a" || tl.Idem.Fields[0] != "a" {
		t.Errorf("configuration not renamed: %+v %+v", tl, *tl.Allow)
	}
	if cfg.Tools[0].Secrets[0] != "token" || string(evs[0].Bytes) != `{"token":"token","auth":{"token"` {
		t.Error("renameMember changed its input")
	}
}

func TestMergedGivesItemsOfTheirOwn(t *testing.T) {
	evs := []sealgate.Event{
		sealgate.OpenEvent("a", "t"), sealgate.BeginEvent("a", "0", "c", "f"), sealgate.CloseEvent("a", sealgate.Complete),
		sealgate.AckEvent("k", false),
		sealgate.OpenEvent("b", "t"), sealgate.BeginEvent("b", "0", "d", "f"), sealgate.EndEvent("b", "0"), sealgate.CloseEvent("b", sealgate.Complete),
	}
	var got []string
	for _, e := range merged(evs, "a", "b", 4, true) {
		got = append(got, e.String())
	}
	want := "open a turn=t|begin a item=0 call=c tool=f|ack k fail|begin a item=1 call=d tool=f|end a item=1|close a status=complete"
	if strings.Join(got, "|") != want {
		t.Errorf("merged:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}
