#!/bin/bash -eu
# OSS-Fuzz's projects/sealgate/build.sh: the steps live once, in the
# repository's .clusterfuzzlite/build.sh.
exec "$SRC/sealgate/.clusterfuzzlite/build.sh"
