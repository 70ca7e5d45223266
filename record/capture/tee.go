package capture

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"tradedeck/record"
)

// tee is an HTTP transport that records every successful REST reply (the
// raw body, so numbers keep the venue's encoding) as it passes to the
// client. Request lines carry no secret: signatures travel in headers.
type tee struct {
	rc   *Recorder
	next http.RoundTripper
}

func (rc *Recorder) teeClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: tee{rc: rc, next: http.DefaultTransport}}
}

func (t tee) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	t.rc.add(record.Record{Kind: record.REST, Time: t.rc.opts.Now().UnixNano(), Key: []byte(record.RequestKey(req.Method, req.URL.Path, req.URL.RawQuery)), Data: body})
	return resp, nil
}
