package p

import "testing"

func TestSome(t *testing.T) {
	if F()+(S[int]{}).Get()+H(false) != 5 {
		t.Fatal("wrong")
	}
	T{}.M()
	if (W{}).Shown() != "v" {
		t.Fatal("wrong")
	}
}
