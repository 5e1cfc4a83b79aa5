//go:build !race

package stdiogate_test

const raceEnabled = false
