//! SM3 rows: one stream through the `digest` traits on the best engine, and the
//! multi-buffer API hashing 8 and 16 messages of the column's size at once.

use shangmi_sm3::{Digest, Sm3};

use super::Row;

/// The SM3 rows.
pub fn rows() -> Vec<Row> {
    vec![
        Row::new("sm3", 1, |buf| {
            std::hint::black_box(Sm3::digest(&*buf));
        }),
        Row::new("sm3-many8", 1, |buf| {
            std::hint::black_box(Sm3::digest_many(&[&*buf; 8]));
        })
        .copies(8),
        Row::new("sm3-many16", 1, |buf| {
            std::hint::black_box(Sm3::digest_many(&[&*buf; 16]));
        })
        .copies(16),
    ]
}
