package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// redactingMetricExporter passes every metric through the redactor before the real exporter sees
// it: names, descriptions and the string attributes of data points and exemplars.
type redactingMetricExporter struct {
	sdkmetric.Exporter
	redact func(string) string
}

// Export redacts a copy of the metrics and exports it (the SDK reuses rm after the call).
func (e redactingMetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if e.redact == nil || rm == nil {
		return e.Exporter.Export(ctx, rm)
	}
	out := &metricdata.ResourceMetrics{Resource: rm.Resource, ScopeMetrics: make([]metricdata.ScopeMetrics, len(rm.ScopeMetrics))}
	for i, sm := range rm.ScopeMetrics {
		ms := make([]metricdata.Metrics, len(sm.Metrics))
		for j, m := range sm.Metrics {
			ms[j] = metricdata.Metrics{Name: e.redact(m.Name), Description: e.redact(m.Description), Unit: m.Unit, Data: e.data(m.Data)}
		}
		out.ScopeMetrics[i] = metricdata.ScopeMetrics{Scope: sm.Scope, Metrics: ms}
	}
	return e.Exporter.Export(ctx, out)
}

// data redacts an aggregation's data points.
func (e redactingMetricExporter) data(a metricdata.Aggregation) metricdata.Aggregation {
	switch d := a.(type) {
	case metricdata.Gauge[int64]:
		d.DataPoints = points(d.DataPoints, e.redact)
		return d
	case metricdata.Gauge[float64]:
		d.DataPoints = points(d.DataPoints, e.redact)
		return d
	case metricdata.Sum[int64]:
		d.DataPoints = points(d.DataPoints, e.redact)
		return d
	case metricdata.Sum[float64]:
		d.DataPoints = points(d.DataPoints, e.redact)
		return d
	case metricdata.Histogram[int64]:
		d.DataPoints = histPoints(d.DataPoints, e.redact)
		return d
	case metricdata.Histogram[float64]:
		d.DataPoints = histPoints(d.DataPoints, e.redact)
		return d
	case metricdata.ExponentialHistogram[int64]:
		d.DataPoints = expPoints(d.DataPoints, e.redact)
		return d
	case metricdata.ExponentialHistogram[float64]:
		d.DataPoints = expPoints(d.DataPoints, e.redact)
		return d
	case metricdata.Summary:
		pts := make([]metricdata.SummaryDataPoint, len(d.DataPoints))
		for i, p := range d.DataPoints {
			p.Attributes = redactSet(p.Attributes, e.redact)
			pts[i] = p
		}
		d.DataPoints = pts
		return d
	}
	return a
}

// points redacts gauge and sum data points.
func points[N int64 | float64](in []metricdata.DataPoint[N], redact func(string) string) []metricdata.DataPoint[N] {
	out := make([]metricdata.DataPoint[N], len(in))
	for i, p := range in {
		p.Attributes, p.Exemplars = redactSet(p.Attributes, redact), exemplars(p.Exemplars, redact)
		out[i] = p
	}
	return out
}

// histPoints redacts histogram data points.
func histPoints[N int64 | float64](in []metricdata.HistogramDataPoint[N], redact func(string) string) []metricdata.HistogramDataPoint[N] {
	out := make([]metricdata.HistogramDataPoint[N], len(in))
	for i, p := range in {
		p.Attributes, p.Exemplars = redactSet(p.Attributes, redact), exemplars(p.Exemplars, redact)
		out[i] = p
	}
	return out
}

// expPoints redacts exponential histogram data points.
func expPoints[N int64 | float64](in []metricdata.ExponentialHistogramDataPoint[N], redact func(string) string) []metricdata.ExponentialHistogramDataPoint[N] {
	out := make([]metricdata.ExponentialHistogramDataPoint[N], len(in))
	for i, p := range in {
		p.Attributes, p.Exemplars = redactSet(p.Attributes, redact), exemplars(p.Exemplars, redact)
		out[i] = p
	}
	return out
}

// exemplars redacts exemplars' filtered attributes.
func exemplars[N int64 | float64](in []metricdata.Exemplar[N], redact func(string) string) []metricdata.Exemplar[N] {
	if len(in) == 0 {
		return in
	}
	out := make([]metricdata.Exemplar[N], len(in))
	for i, x := range in {
		x.FilteredAttributes = redactAttrs(x.FilteredAttributes, redact)
		out[i] = x
	}
	return out
}

// redactSet is an attribute set with its string values redacted.
func redactSet(s attribute.Set, redact func(string) string) attribute.Set {
	return attribute.NewSet(redactAttrs(s.ToSlice(), redact)...)
}
