// Package metricstest reads a Prometheus metrics endpoint for the tests of
// package metrics and of setmatchd: a scrape parsed into metric families,
// and the value of one series.
package metricstest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	dto "github.com/prometheus/client_model/go"
)

// Scrape gets url over HTTP, checks that it answers 200 in the text
// format, and returns the metric families parsed from it, by name, and the
// text.
func Scrape(ctx context.Context, t testing.TB, url string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s %v\n%s", url, resp.Status, err, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want the text format", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parsing the scrape of %s: %v\n%s", url, err, body)
	}
	return fams, string(body)
}

// Value returns the value of the first series of family name whose labels
// include the name=value pairs of want: a counter's or gauge's value, a
// histogram's sample count. ok is false if there is none.
func Value(fams map[string]*dto.MetricFamily, name string, want ...string) (v float64, ok bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.Metric {
		lab := map[string]string{}
		for _, l := range m.Label {
			lab[l.GetName()] = l.GetValue()
		}
		match := true
		for i := 0; i+1 < len(want); i += 2 {
			match = match && lab[want[i]] == want[i+1]
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}
