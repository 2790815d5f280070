//! [`Exported`]: what an in-memory OpenTelemetry exporter received, read by
//! instrument name and attributes.

use opentelemetry::metrics::{Meter, MeterProvider as _};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};

/// A meter provider exporting to memory.
#[derive(Debug)]
pub struct MemoryMeter {
    provider: SdkMeterProvider,
    exporter: InMemoryMetricExporter,
}

impl MemoryMeter {
    pub fn new() -> Self {
        let exporter = InMemoryMetricExporter::default();
        let provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter.clone()).build())
            .build();
        Self { provider, exporter }
    }

    pub fn meter(&self) -> Meter {
        self.provider.meter("rebound-tests")
    }

    /// Collects now: the last export's data points.
    pub fn collect(&self) -> Exported {
        self.provider.force_flush().unwrap();
        let exports = self.exporter.get_finished_metrics().unwrap();
        let last = exports.last().expect("one export");
        let mut points = Vec::new();
        for scope in last.scope_metrics() {
            for metric in scope.metrics() {
                read(metric.name(), metric.data(), &mut points);
            }
        }
        Exported(points)
    }
}

/// One data point: its instrument, its attributes, its value.
#[derive(Debug, Clone)]
pub struct Point {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    pub value: Value,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Number(f64),
    Histogram { count: u64, sum: f64 },
}

fn read(name: &str, data: &AggregatedMetrics, points: &mut Vec<Point>) {
    match data {
        AggregatedMetrics::U64(data) => read_data(name, data, |v| v as f64, points),
        AggregatedMetrics::F64(data) => read_data(name, data, |v| v, points),
        AggregatedMetrics::I64(data) => read_data(name, data, |v| v as f64, points),
    }
}

fn read_data<T: Copy>(
    name: &str,
    data: &MetricData<T>,
    to_f64: impl Fn(T) -> f64,
    points: &mut Vec<Point>,
) {
    let attributes = |attrs: &mut dyn Iterator<Item = &opentelemetry::KeyValue>| {
        attrs
            .map(|kv| (kv.key.to_string(), kv.value.to_string()))
            .collect::<Vec<_>>()
    };
    let mut push = |attributes, value| {
        points.push(Point {
            name: name.to_owned(),
            attributes,
            value,
        })
    };
    match data {
        MetricData::Sum(sum) => {
            for p in sum.data_points() {
                push(
                    attributes(&mut p.attributes()),
                    Value::Number(to_f64(p.value())),
                );
            }
        }
        MetricData::Gauge(gauge) => {
            for p in gauge.data_points() {
                push(
                    attributes(&mut p.attributes()),
                    Value::Number(to_f64(p.value())),
                );
            }
        }
        MetricData::Histogram(histogram) => {
            for p in histogram.data_points() {
                let value = Value::Histogram {
                    count: p.count(),
                    sum: to_f64(p.sum()),
                };
                push(attributes(&mut p.attributes()), value);
            }
        }
        MetricData::ExponentialHistogram(_) => panic!("{name}: no exponential histograms"),
    }
}

/// Every data point of one collection.
#[derive(Debug, Clone)]
pub struct Exported(pub Vec<Point>);

impl Exported {
    /// The points of `name` carrying every attribute of `with`.
    pub fn points<'a>(
        &'a self,
        name: &'a str,
        with: &'a [(&str, &str)],
    ) -> impl Iterator<Item = &'a Point> {
        self.0.iter().filter(move |point| {
            point.name == name
                && with
                    .iter()
                    .all(|(k, v)| point.attributes.iter().any(|(pk, pv)| pk == k && pv == v))
        })
    }

    /// The sum of the counter or gauge values of `name` with `with`.
    pub fn number(&self, name: &str, with: &[(&str, &str)]) -> f64 {
        self.points(name, with)
            .map(|point| match point.value {
                Value::Number(value) => value,
                Value::Histogram { .. } => panic!("{name} is a histogram"),
            })
            .sum()
    }

    /// The summed count and sum of the histogram `name` with `with`.
    pub fn histogram(&self, name: &str, with: &[(&str, &str)]) -> (u64, f64) {
        self.points(name, with)
            .fold((0, 0.0), |(count, sum), point| match point.value {
                Value::Histogram { count: c, sum: s } => (count + c, sum + s),
                Value::Number(_) => panic!("{name} is not a histogram"),
            })
    }
}
