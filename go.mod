module github.com/cordonsh/cordon

go 1.26.8

require (
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
