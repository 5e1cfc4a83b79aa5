package lazyfs

// SetDevice points Mount at another FUSE device path and returns a
// function that restores it.
func SetDevice(path string) func() {
	old := fuseDevice
	fuseDevice = path
	return func() { fuseDevice = old }
}

// Unavailable is unavailable, for the test of what a missing FUSE says.
var Unavailable = unavailable
