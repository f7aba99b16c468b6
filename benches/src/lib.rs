//! Helpers shared by the criterion benches in `benches/` (the benches themselves are the
//! bench targets; this library holds no measured code).

use std::time::Duration;

use criterion::{BenchmarkGroup, Criterion, Throughput, measurement::WallTime};

/// A criterion group named `name` that counts `bytes` per iteration as its throughput,
/// with 0.5 s of warm-up and 1 s of measurement per function (so the ratios of one size
/// come from one run).
pub fn bytes_group(c: &mut Criterion, name: String, bytes: usize) -> BenchmarkGroup<'_, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(bytes as u64))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    g
}
