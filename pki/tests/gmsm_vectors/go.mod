module shangmi/pki/tests/gmsm_vectors

go 1.25.0

require github.com/emmansun/gmsm v0.44.0

require golang.org/x/crypto v0.53.0 // indirect
