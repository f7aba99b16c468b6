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
//! Rows that count operations rather than bytes (SM2 sign/verify) need a second kind of
//! row printed in op/s: add it here beside [`Row`] when the first such row arrives.

mod sm4;

use shangmi_sm4::Backend;

/// A row's work: processes the whole buffer in place.
pub type Work = Box<dyn FnMut(&mut [u8])>;

/// One row of the table.
pub struct Row {
    /// Shown in the first column and matched by the command's filters.
    pub name: &'static str,
    /// Buffer sizes must be a multiple of this (16 for block modes, 1 for streams).
    pub granule: usize,
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
            run: Box::new(work),
        }
    }
}

/// Every row, in table order, with SM4 running on `sm4_engine`.
pub fn all(sm4_engine: Backend) -> Vec<Row> {
    sm4::rows(sm4_engine)
}
