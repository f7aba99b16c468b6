//! Rows of the GB/T 17964-2021 modes BC, OFBNLF and HCTR and of the GB/T 15852.1-2020
//! MACs, from `shangmi-sm4-modes`.
//!
//! - `sm4-bc-enc` / `sm4-bc-dec`: BC over the buffer (encryption serial on the CBC chain,
//!   decryption on the parallel path).
//! - `sm4-ofbnlf-enc`: OFBNLF over the buffer (a key schedule per block).
//! - `sm4-hctr-enc` / `sm4-hctr-dec`: the whole buffer as one HCTR sector.
//! - `sm4-cbcmac` / `sm4-emac` / `sm4-lmac` / `sm4-trcbc` / `sm4-cbcr`: GB/T 15852.1 MAC
//!   algorithms 1, 2, 6, 7 and 8 (padding method 2 where the algorithm takes one) of the
//!   buffer.

use shangmi_sm4::{Backend, BackendError};
use shangmi_sm4_modes::{
    Sm4, Sm4BcDec, Sm4BcEnc, Sm4CbcMac, Sm4Cbcr, Sm4Emac, Sm4Hctr, Sm4Lmac, Sm4OfbnlfEnc, Sm4TrCbc,
    cipher::{Block, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit},
    cmac::digest::Mac,
};

use super::{Row, SM4_KEY, sm4_on};

const KEY2: [u8; 32] = [0x42; 32];
const IV: [u8; 16] = [0x24; 16];
const TWEAK: [u8; 16] = [0x11; 16];

/// For `unwrap_or_else` on an engine the caller checked.
fn checked<T>(e: BackendError) -> T {
    panic!("engine checked by the caller: {e}")
}

/// The buffer as whole blocks (these rows only get multiples of the block size).
fn blocks(buf: &mut [u8]) -> &mut [Block<Sm4>] {
    Block::<Sm4>::slice_as_chunks_mut(buf).0
}

/// A MAC row: the tag of the buffer, from a fresh `make()` per call.
fn mac<M: Mac + 'static>(name: &'static str, make: impl Fn() -> M + 'static) -> Row {
    Row::new(name, 1, move |buf| {
        std::hint::black_box(make().chain_update(&*buf).finalize());
    })
}

/// The rows with SM4 on `engine`, which the caller checked is available.
pub fn rows(engine: Backend) -> Vec<Row> {
    let (bc_enc, bc_dec, ofbnlf) = (sm4_on(engine), sm4_on(engine), sm4_on(engine));
    let hctr_enc = Sm4Hctr::from_cipher(sm4_on(engine), &TWEAK);
    let hctr_dec = hctr_enc.clone();
    vec![
        Row::new("sm4-bc-enc", 16, move |buf| {
            Sm4BcEnc::inner_iv_init(bc_enc.clone(), &IV.into()).encrypt_blocks(blocks(buf))
        }),
        Row::new("sm4-bc-dec", 16, move |buf| {
            Sm4BcDec::inner_iv_init(bc_dec.clone(), &IV.into()).decrypt_blocks(blocks(buf))
        }),
        Row::new("sm4-ofbnlf-enc", 16, move |buf| {
            Sm4OfbnlfEnc::inner_iv_init(ofbnlf.clone(), &IV.into()).encrypt_blocks(blocks(buf))
        }),
        Row::new("sm4-hctr-enc", 16, move |buf| {
            hctr_enc.encrypt(&TWEAK, buf).expect("at least one block")
        }),
        Row::new("sm4-hctr-dec", 16, move |buf| {
            hctr_dec.decrypt(&TWEAK, buf).expect("at least one block")
        }),
        mac("sm4-cbcmac", move || {
            <Sm4CbcMac>::with_backend(&SM4_KEY.into(), engine).unwrap_or_else(checked)
        }),
        mac("sm4-emac", move || {
            <Sm4Emac>::with_backend(&KEY2.into(), engine).unwrap_or_else(checked)
        }),
        mac("sm4-lmac", move || {
            <Sm4Lmac>::with_backend(&SM4_KEY.into(), engine).unwrap_or_else(checked)
        }),
        mac("sm4-trcbc", move || {
            <Sm4TrCbc>::with_backend(&SM4_KEY.into(), engine).unwrap_or_else(checked)
        }),
        mac("sm4-cbcr", move || {
            Sm4Cbcr::with_backend(&SM4_KEY.into(), engine).unwrap_or_else(checked)
        }),
    ]
}
