//! The `speed` subcommand: options, timing loop and table.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::Failure;
use crate::rows::{self, OpRow, Row};

pub(crate) mod choice;
mod cpu;

pub use choice::{Backends, Forcing};

/// Buffer sizes of the table's columns, in bytes (as the tcrypt tables).
pub const SIZES: [usize; 6] = [16, 64, 256, 1024, 8192, 16384];

/// Options of `shangmi speed`.
#[derive(clap::Args)]
#[command(after_help = "Example: shangmi speed --seconds 0.05 ctr cbc-dec")]
pub struct Args {
    /// Run SM4, ZUC, ZUC many-stream or the SM9 field on this backend instead of the best
    /// one (repeatable: one name per family; `soft` forces SM4's and ZUC's portable code,
    /// `portable` the SM9 field's; an unknown or absent backend is an error that lists the
    /// available ones).
    #[arg(long, value_name = "NAME", value_parser = choice::parse)]
    pub backend: Vec<Forcing>,
    /// Time per table cell, in seconds (0 < S <= 60).
    #[arg(long, value_name = "S", default_value = "0.2", value_parser = parse_seconds)]
    pub seconds: Duration,
    /// Only rows whose name contains one of these words (e.g. ctr, sm4-cbc).
    #[arg(value_name = "FILTER")]
    pub filters: Vec<String>,
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if !(secs > 0.0 && secs <= 60.0) {
        return Err(format!("{secs} is outside (0, 60]"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Bytes per second of `row` on buffers of `size` bytes, timed for about `budget`.
fn measure(row: &mut Row, size: usize, budget: Duration) -> f64 {
    let mut buf: Vec<u8> = (0..size).map(|i| i as u8).collect();
    // Warm up (caches, branch predictors, clock) for a tenth of the budget.
    let warm = Instant::now();
    while warm.elapsed() < budget / 10 {
        (row.run)(&mut buf);
    }
    let mut iterations = 0u64;
    let start = Instant::now();
    // Check the clock every few iterations only, so small buffers are not dominated by it.
    let batch = (65536 / size.max(1)).max(1) as u64;
    while start.elapsed() < budget {
        for _ in 0..batch {
            (row.run)(&mut buf);
        }
        iterations += batch;
    }
    std::hint::black_box(&buf);
    (iterations * (size * row.copies) as u64) as f64 / start.elapsed().as_secs_f64()
}

/// Operations per second of `row`, timed for about `budget` after a tenth of it warming up.
fn measure_ops(row: &mut OpRow, budget: Duration) -> f64 {
    let warm = Instant::now();
    while warm.elapsed() < budget / 10 {
        (row.run)();
    }
    let mut iterations = 0u64;
    let start = Instant::now();
    while start.elapsed() < budget {
        for _ in 0..16 {
            (row.run)();
        }
        iterations += 16;
    }
    iterations as f64 / start.elapsed().as_secs_f64()
}

/// Keeps the rows whose names contain one of `filters` (all rows when there is none).
fn filter<T>(rows: &mut Vec<T>, name: impl Fn(&T) -> &str, filters: &[String]) {
    if !filters.is_empty() {
        rows.retain(|r| filters.iter().any(|f| name(r).contains(f.as_str())));
    }
}

/// Runs the table.
pub fn run(options: &Args) -> Result<ExitCode, Failure> {
    let backends = Backends::new(&options.backend);
    // SM9's field backend is process-wide; the parser checked that it runs here.
    shangmi_sm9::use_backend(backends.sm9_field).map_err(|e| Failure::usage(e.to_string()))?;
    let per_cell = options.seconds;
    let mut rows = rows::all(&backends);
    let mut ops = rows::ops();
    filter(&mut rows, |r| r.name, &options.filters);
    filter(&mut ops, |r| r.name, &options.filters);
    if rows.is_empty() && ops.is_empty() {
        return Err(Failure::usage(format!(
            "speed: no row matches {:?}",
            options.filters
        )));
    }
    let out = &mut std::io::stdout().lock();
    header(out, &backends).map_err(|e| Failure::write(&e))?;
    if !rows.is_empty() {
        bytes_table(out, &mut rows, per_cell).map_err(|e| Failure::write(&e))?;
    }
    if !ops.is_empty() {
        ops_table(out, &mut ops, per_cell).map_err(|e| Failure::write(&e))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The machine line and every family's backend. Output goes through `io::Write` so that a
/// closed pipe (`shangmi speed | head -3`) ends the command quietly instead of panicking.
fn header(out: &mut impl Write, backends: &Backends) -> std::io::Result<()> {
    writeln!(out, "shangmi speed on {}", cpu::describe())?;
    backends.header(out)
}

/// The width of the name column: the longest name and two spaces (at least 16).
fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names.map(|n| n.len() + 2).max().unwrap_or(0).max(16)
}

/// Prints the MB/s table: one column per buffer size.
fn bytes_table(out: &mut impl Write, rows: &mut [Row], per_cell: Duration) -> std::io::Result<()> {
    writeln!(
        out,
        "MB/s (10^6 bytes per second), {} s per cell",
        per_cell.as_secs_f64()
    )?;
    let width = name_width(rows.iter().map(|r| r.name));
    write!(out, "{:<width$}", "")?;
    for size in SIZES {
        write!(out, "{:>10}", format!("{size} B"))?;
    }
    writeln!(out)?;
    for row in rows.iter_mut() {
        write!(out, "{:<width$}", row.name)?;
        for size in SIZES {
            let cell = if size % row.granule == 0 {
                format!("{:.0}", measure(row, size, per_cell) / 1e6)
            } else {
                "-".to_owned()
            };
            write!(out, "{cell:>10}")?;
            // Show progress cell by cell.
            out.flush()?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Prints the operations table: operations per second and microseconds per operation.
fn ops_table(out: &mut impl Write, rows: &mut [OpRow], per_cell: Duration) -> std::io::Result<()> {
    let width = name_width(rows.iter().map(|r| r.name));
    writeln!(
        out,
        "\nOperations, {} s per cell\n{:<width$}{:>10}{:>10}",
        per_cell.as_secs_f64(),
        "",
        "op/s",
        "us/op"
    )?;
    for row in rows.iter_mut() {
        let per_second = measure_ops(row, per_cell);
        writeln!(
            out,
            "{:<width$}{:>10.0}{:>10.1}",
            row.name,
            per_second,
            1e6 / per_second
        )?;
    }
    Ok(())
}
