module sealgate

go 1.26

require (
	github.com/go-json-experiment/json v1.27.2
	github.com/google/gofuzz v1.2.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	pgregory.net/rapid v1.3.0
)

require golang.org/x/text v0.14.0 // indirect
