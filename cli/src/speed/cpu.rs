//! Which CPU a table was measured on: vendor, family and model from `/proc/cpuinfo` (the
//! project's machines differ, and ratios move with the CPU), and the core clock measured
//! as the cycles of a dependent chain of 64-bit `imul` (3 cycles of latency on every AMD
//! Zen and Intel core since Sandy Bridge) over the time it took.

use std::time::Instant;

/// One line naming the CPU, e.g. `AMD EPYC (AuthenticAMD family 25 model 1, Zen 3;
/// 2 threads; 3.00 GHz by a dependent imul chain)`.
pub fn describe() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
    };
    let name = field("model name").unwrap_or_else(|| std::env::consts::ARCH.to_owned());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut parts = Vec::new();
    if let (Some(vendor), Some(family), Some(model)) =
        (field("vendor_id"), field("cpu family"), field("model"))
    {
        let core = family
            .parse()
            .ok()
            .zip(model.parse().ok())
            .and_then(|(f, m)| core_name(&vendor, f, m));
        let core = core.map(|c| format!(", {c}")).unwrap_or_default();
        parts.push(format!("{vendor} family {family} model {model}{core}"));
    }
    parts.push(format!("{threads} threads"));
    if let Some(ghz) = clock_ghz() {
        parts.push(format!("{ghz:.2} GHz by a dependent imul chain"));
    }
    format!("{name} ({})", parts.join("; "))
}

/// The core's name for the AMD families the project has met (decimal family and model as
/// `/proc/cpuinfo` prints them; AMD's published family/model tables).
fn core_name(vendor: &str, family: u32, model: u32) -> Option<&'static str> {
    match (vendor, family, model) {
        ("AuthenticAMD", 23, _) => Some("Zen/Zen 2"),
        ("AuthenticAMD", 25, 0x00..=0x0f | 0x20..=0x2f | 0x40..=0x5f) => Some("Zen 3"),
        ("AuthenticAMD", 25, 0x10..=0x1f | 0x60..=0x7f | 0xa0..=0xaf) => Some("Zen 4"),
        ("AuthenticAMD", 26, _) => Some("Zen 5"),
        _ => None,
    }
}

/// The clock in GHz: the best of twenty timings of a chain of 8 × 250,000 dependent
/// `imul r64, r64` (3 cycles each), 2 ms each at 3 GHz (short, so that one of them runs
/// between two interruptions on a busy machine).
#[cfg(target_arch = "x86_64")]
fn clock_ghz() -> Option<f64> {
    const ROUNDS: u64 = 250_000;
    let mut best = f64::INFINITY;
    for _ in 0..20 {
        let start = Instant::now();
        let mut x: u64 = 3;
        let mut n = ROUNDS;
        // SAFETY: register-only arithmetic and a counted loop on the two operands named
        // here; no memory, no stack, flags are clobbered as asm! assumes by default.
        unsafe {
            core::arch::asm!(
                "2:",
                // eight dependent products a pass (the assembler repeats the line)
                ".rept 8",
                "imul {x}, {x}",
                ".endr",
                "dec {n}",
                "jnz 2b",
                x = inout(reg) x,
                n = inout(reg) n,
                options(nomem, nostack),
            );
        }
        std::hint::black_box((x, n));
        best = best.min(start.elapsed().as_secs_f64());
    }
    (best > 0.0).then(|| (ROUNDS * 8 * 3) as f64 / best / 1e9)
}

/// No reference chain is written for other architectures: the clock is left out.
#[cfg(not(target_arch = "x86_64"))]
fn clock_ghz() -> Option<f64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_project_machines() {
        assert_eq!(core_name("AuthenticAMD", 25, 1), Some("Zen 3"));
        assert_eq!(core_name("AuthenticAMD", 25, 17), Some("Zen 4"));
        assert_eq!(core_name("AuthenticAMD", 26, 2), Some("Zen 5"));
        assert_eq!(core_name("GenuineIntel", 6, 143), None);
    }
}
