//! The rows of the speed table: one closure per algorithm and mode, run on a buffer.
//! A new algorithm is one more entry in [`all`].

use cbc::cipher::{BlockModeDecrypt, BlockModeEncrypt, InnerIvInit};
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Block, BlockCipherDecrypt, BlockCipherEncrypt},
};

/// A row's work: processes the buffer in place.
pub type Work = Box<dyn FnMut(&mut [u8])>;

/// One row of the table.
pub struct Row {
    /// Shown in the first column and matched by filters.
    pub name: &'static str,
    /// Buffer sizes must be a multiple of this (the block size for block modes).
    pub granule: usize,
    /// Processes the buffer in place.
    pub run: Work,
}

fn blocks(buf: &mut [u8]) -> &mut [Block<Sm4>] {
    Block::<Sm4>::slice_as_chunks_mut(buf).0
}

/// Every row, with SM4 on `backend`.
pub fn all(backend: Backend) -> Vec<Row> {
    // `backend` was checked by the caller, so this cannot fail.
    let key = [0x42u8; 16];
    let sm4 = Sm4::with_backend(&key.into(), backend).unwrap_or_else(|e| panic!("{e}"));
    let iv = [0x24u8; 16];
    let (a, b, c, d, e) = (sm4.clone(), sm4.clone(), sm4.clone(), sm4.clone(), sm4);
    vec![
        Row {
            name: "sm4-ecb-enc",
            granule: 16,
            run: Box::new(move |buf| a.encrypt_blocks(blocks(buf))),
        },
        Row {
            name: "sm4-ecb-dec",
            granule: 16,
            run: Box::new(move |buf| b.decrypt_blocks(blocks(buf))),
        },
        Row {
            name: "sm4-cbc-enc",
            granule: 16,
            run: Box::new(move |buf| {
                cbc::Encryptor::inner_iv_init(c.clone(), &iv.into()).encrypt_blocks(blocks(buf))
            }),
        },
        Row {
            name: "sm4-cbc-dec",
            granule: 16,
            run: Box::new(move |buf| {
                cbc::Decryptor::inner_iv_init(d.clone(), &iv.into()).decrypt_blocks(blocks(buf))
            }),
        },
        Row {
            name: "sm4-ctr",
            granule: 1,
            run: Box::new(move |buf| {
                let mut counter = iv;
                e.apply_ctr(CtrFlavor::Be128, &mut counter, buf);
            }),
        },
    ]
}
