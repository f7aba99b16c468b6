//! The rows of the speed table.
//!
//! A row is a name and a closure that processes a buffer in place; the table times it on
//! each column's buffer size. Each algorithm has its own module returning its rows, and
//! [`all`] chains them, so a new algorithm (SM3, the SM4 modes) is one module with one
//! small function plus one line in [`all`]:
//!
//! ```text
//! pub fn rows() -> Vec<Row> {
//!     vec![Row::new("sm3", 1, |buf| { std::hint::black_box(Sm3::digest(&*buf)); })]
//! }
//! ```
//!
//! Rows that count operations rather than bytes (SM2 sign, verify, …) are [`OpRow`]s,
//! printed in a second table in operations per second; [`ops`] chains them.

mod drbg;
mod gb_modes;
mod modes;
mod sm2;
mod sm3;
mod sm4;
mod sm9;
mod zuc;

use crate::speed::choice::Backends;

/// The key of every SM4 row (sm4, modes, gb_modes).
const SM4_KEY: [u8; 16] = [0x42; 16];

/// Our SM4 under [`SM4_KEY`] on `engine`, which the caller checked is available.
fn sm4_on(engine: shangmi_sm4::Backend) -> shangmi_sm4::Sm4 {
    shangmi_sm4::Sm4::with_backend(&SM4_KEY.into(), engine)
        .unwrap_or_else(|e| panic!("engine checked by the caller: {e}"))
}

/// A row's work: processes the whole buffer in place.
pub type Work = Box<dyn FnMut(&mut [u8])>;

/// One row of the table.
pub struct Row {
    /// Shown in the first column and matched by the command's filters.
    pub name: &'static str,
    /// Buffer sizes must be a multiple of this (16 for block modes, 1 for streams).
    pub granule: usize,
    /// How many times each call processes the buffer's bytes (a multi-buffer hash of 16
    /// copies of the buffer counts 16 times its size); 1 for ordinary rows.
    pub copies: usize,
    /// Processes the buffer in place.
    pub run: Work,
}

impl Row {
    /// A row called `name` that runs `work` on buffers whose size is a multiple of
    /// `granule`.
    pub fn new(name: &'static str, granule: usize, work: impl FnMut(&mut [u8]) + 'static) -> Row {
        Row {
            name,
            granule,
            copies: 1,
            run: Box::new(work),
        }
    }

    /// The same row, counted as processing `copies` times the buffer per call.
    pub fn copies(self, copies: usize) -> Row {
        Row { copies, ..self }
    }
}

/// One row of the operations table: a closure doing one operation (one signature, …).
pub struct OpRow {
    /// Shown in the first column and matched by the command's filters.
    pub name: &'static str,
    /// Does one operation.
    pub run: Box<dyn FnMut()>,
}

impl OpRow {
    /// A row called `name` whose one operation is `op`.
    pub fn new(name: &'static str, op: impl FnMut() + 'static) -> OpRow {
        OpRow {
            name,
            run: Box::new(op),
        }
    }
}

/// Every byte-throughput row, in table order, with SM4 and ZUC running on `backends`.
pub fn all(backends: &Backends) -> Vec<Row> {
    let mut rows = sm4::rows(backends.sm4);
    rows.extend(modes::rows(backends.sm4));
    rows.extend(gb_modes::rows(backends.sm4));
    rows.extend(sm3::rows());
    rows.extend(drbg::rows());
    rows.extend(zuc::rows(backends.zuc, backends.zuc_many));
    rows
}

/// Every operations-per-second row, in table order.
pub fn ops() -> Vec<OpRow> {
    let mut rows = sm2::rows();
    rows.extend(sm9::rows());
    rows
}
