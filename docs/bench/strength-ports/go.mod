module secutil/docs/bench/strength-ports

go 1.26.0

require (
	github.com/ccojocar/zxcvbn-go v1.0.4
	github.com/nbutton23/zxcvbn-go v0.0.0-20210217022336-fa2cb2858354
	github.com/trustelem/zxcvbn v1.0.1
	secutil v0.0.0
)

require (
	github.com/dlclark/regexp2 v1.12.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/test-go/testify v1.1.4 // indirect
)

replace secutil => ../../..
