package power

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chart draws the median (filled) and maximum (hollow) time to the first
// failure of every bug under every technique, on a log scale; a missing
// mark means the bug was never found that way.
func (p *power) chart(path string) error {
	pl := plot.New()
	pl.Title.Text = "sealgate bug zoo: time to first failure (solid mark: median, ring: max)"
	pl.Y.Label.Text = "milliseconds (log scale)"
	pl.Y.Scale = plot.LogScale{}
	pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	pl.Legend.Top = true
	var names []string
	for _, b := range p.bugs {
		names = append(names, b.Name)
	}
	i := 0
	plotted := false
	for _, tech := range []string{"rapid", "gofuzz", "corpus"} {
		if !p.techs[tech] {
			continue
		}
		var med, mx plotter.XYs
		for j, b := range p.bugs {
			s, ok := p.stats(b.Name, tech)
			if !ok || s.found == 0 {
				continue
			}
			x := float64(j) + 0.2*float64(i-1)
			med = append(med, plotter.XY{X: x, Y: ms(s.median)})
			mx = append(mx, plotter.XY{X: x, Y: ms(s.maximum)})
		}
		if len(med) == 0 {
			i++
			continue
		}
		sm, err := plotter.NewScatter(med)
		if err != nil {
			return err
		}
		solid := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
		sm.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(i), Radius: vg.Points(4), Shape: solid[i%len(solid)]}
		sx, err := plotter.NewScatter(mx)
		if err != nil {
			return err
		}
		sx.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(i), Radius: vg.Points(4), Shape: draw.RingGlyph{}}
		pl.Add(sm, sx)
		pl.Legend.Add(tech, sm)
		plotted = true
		i++
	}
	if !plotted {
		// No bug was found at all (say, -bugs names only bugs the
		// generators miss): an empty log axis has no range of its own.
		pl.Y.Min, pl.Y.Max = 1, 1000
	}
	pl.Add(plotter.NewGrid())
	pl.NominalX(names...)
	pl.X.Tick.Label.Rotation = math.Pi / 4
	pl.X.Tick.Label.XAlign = draw.XRight
	return pl.Save(13*vg.Inch, 6*vg.Inch, path)
}

// ms is a duration in milliseconds, floored so that a log scale can show it.
func ms(d interface{ Seconds() float64 }) float64 {
	return math.Max(d.Seconds()*1000, 0.01)
}
