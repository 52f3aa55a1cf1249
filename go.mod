module github.com/gatewaycircuit/gatewaycircuit

go 1.26.0
