//go:build !linux

package throughput

import (
	"time"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// threadCPU is the process's CPU time where no thread clock is read: the
// split of the checking time then counts the runtime's own threads too.
func threadCPU() time.Duration { return fuzzkit.ProcessCPU() }
