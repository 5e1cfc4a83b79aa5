package throughput

import (
	"errors"
	"fmt"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// tb is the fuzzkit.TB a body runs with here: Fatalf stops the body, as
// go test's does, by a panic that runOne recovers.
type tb struct {
	failed []string
}

// errStopped is tb's panic value: the body called Fatalf.
var errStopped = errors.New("the body stopped")

func (t *tb) Helper() {}

func (t *tb) Errorf(format string, args ...any) {
	t.failed = append(t.failed, fmt.Sprintf(format, args...))
}

func (t *tb) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	panic(errStopped)
}

// runOne runs one input through run, and returns the body's failure, if it
// reported one.
func runOne(run func(t fuzzkit.TB, in []byte), in []byte) (err error) {
	t := &tb{}
	defer func() {
		if r := recover(); r != nil && r != errStopped {
			panic(r)
		}
		if len(t.failed) > 0 {
			err = errors.New(t.failed[0])
		}
	}()
	run(t, in)
	return nil
}
