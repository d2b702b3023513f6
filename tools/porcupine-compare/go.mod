module github.com/partkit/porcupine-compare

go 1.19

require github.com/anishathalye/porcupine v0.0.0-00010101000000-000000000000

// Porcupine is not vendored in partkit. Where the module proxy is reachable, drop this line
// and run `go get github.com/anishathalye/porcupine@<version>`; otherwise point it at a local
// checkout of the package (see README.md).
replace github.com/anishathalye/porcupine => /tmp/porcupine
