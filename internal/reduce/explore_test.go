package reduce_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/scn"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	for _, b := range zoo.All {
		s, err := scn.ParseFile(filepath.Join("..", "..", b.Kill.Where))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := s.Config()
		if err != nil {
			t.Fatal(err)
		}
		st := time.Now()
		res, err := reduce.Reduce(cfg, s.Events, b.Checker().All, reduce.Options{})
		if err != nil {
			t.Errorf("%s: %v", b.Name, err)
			continue
		}
		t.Logf("%s: %d -> %d events, %d tries, %v\n%s", b.Name, len(s.Events), len(res.Events), res.Tries, time.Since(st), reduce.Text(res.Config, res.Events, res.Err))
	}
}
