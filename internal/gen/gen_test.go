package gen

import "testing"

func TestReadingOf(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want Reading
	}{
		{nil, Gofuzz}, {[]byte{0}, Gofuzz}, {[]byte{4, 9}, Gofuzz},
		{[]byte{1}, Text}, {[]byte{3}, Text}, {[]byte{255}, Text},
		{[]byte{2}, Machine}, {[]byte{6, 0}, Machine},
	} {
		if got := ReadingOf(c.data); got != c.want {
			t.Errorf("ReadingOf(%v) = %v, want %v", c.data, got, c.want)
		}
	}
	if _, _, ok := Input([]byte{2, 1, 2, 3}); ok {
		t.Error("Input decoded the machine reading, which only package machine can")
	}
}
