"""The Prometheus registry's arithmetic: counters, gauges both ways, histogram buckets."""

from __future__ import annotations

from memtap.engine.metrics import Counter, Gauge, Histogram


def test_gauge_goes_both_ways_per_label_set():
    gauge = Gauge("g", "help", ["kind"])
    gauge.inc("a")
    gauge.inc("a", amount=2)
    gauge.dec("a")
    gauge.dec("b")
    assert gauge.value("a") == 2 and gauge.value("b") == -1


def test_histogram_counts_each_observation_once_and_sums_per_label_set():
    histogram = Histogram("h_ms", "help", ["upstream"], buckets=(1, 10))
    for value in (0.5, 1, 5, 50):
        histogram.observe(value, "x")
    histogram.observe(3, "y")
    assert histogram.count("x") == 4 and histogram.count("y") == 1
    lines = histogram.render()
    assert 'h_ms_bucket{upstream="x",le="1"} 2' in lines
    assert 'h_ms_bucket{upstream="x",le="10"} 3' in lines
    assert 'h_ms_bucket{upstream="x",le="+Inf"} 4' in lines
    assert 'h_ms_sum{upstream="x"} 56.5' in lines
    assert 'h_ms_sum{upstream="y"} 3' in lines


def test_counter_labels_are_escaped():
    counter = Counter("c_total", "help", ["path"])
    counter.inc('a"b\n')
    assert 'c_total{path="a\\"b\\n"} 1' in counter.render()
