//go:build js && wasm

package main

import (
	"context"
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/hack-pad/safejs"
)

// jsClient sends upstream requests through the JS side's helper, which
// calls the Workers fetch and reads the body up to maxBytes (0: no bound):
// (url, method, headers, body, timeoutMs, maxBytes) => Promise<{status, headers, body, held}>;
// a larger body is not read, and held is the id the JS side keeps it under.
type jsClient struct {
	fetch     safejs.Value
	timeoutMs int64
}

func (c jsClient) Fetch(_ context.Context, req origin.Request) (origin.Response, error) {
	var body any
	if req.Body != nil {
		b, err := bytesToJS(req.Body)
		if err != nil {
			return origin.Response{}, err
		}
		body = b
	}
	p, err := c.fetch.Invoke(req.URL, req.Method, headerToJS(req.Header), body, float64(c.timeoutMs), float64(req.MaxBodyBytes))
	if err != nil {
		return origin.Response{}, errors.Join(origin.ErrUnreachable, err)
	}
	v, err := await(p)
	if err != nil {
		return origin.Response{}, errors.Join(origin.ErrUnreachable, err)
	}
	status, _ := v.Get("status")
	headers, _ := v.Get("headers")
	b, _ := v.Get("body")
	held, _ := v.Get("held")
	code, _ := status.Int()
	heldID, _ := held.Int()
	return origin.Response{Status: code, Header: headerFromJS(headers), Body: bytesFromJS(b), Held: heldID}, nil
}
