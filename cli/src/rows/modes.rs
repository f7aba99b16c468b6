//! SM4 mode rows (GCM, CCM, XTS, CMAC) from `shangmi-sm4-modes`.
//!
//! - `sm4-gcm-seal` / `sm4-ccm-seal`: one in-place seal of the buffer with a 16-byte tag
//!   and 16 bytes of associated data, detached tag (TLS-record-like).
//! - `sm4-gcm-siv-seal`: the same for SM4-GCM-SIV (RFC 8452), whose per-nonce key
//!   derivation is part of every call. (No open row: its keystream depends on the tag, so
//!   the two-state trick below does not apply.)
//! - `sm4-gcm-open` / `sm4-ccm-open`: one in-place open whose tag really verifies. Opening
//!   in place turns the buffer X into X ⊕ keystream, so the row precomputes (outside the
//!   timing, once per buffer) the tags of both states, X and X ⊕ keystream, and alternates
//!   between them: every timed call decrypts, authenticates and succeeds.
//! - `sm4-xts-enc` / `sm4-xts-dec`: the whole buffer as one IEEE 1619 data unit (the GB/T
//!   17964 flavour differs only in the tweak multiplication and runs at the same speed).
//! - `sm4-cmac`: the CMAC of the buffer; `sm4-cmac-many16`: the CMACs of 16 copies of it at
//!   once (`cmac_many`).

use shangmi_sm4::Backend;
use shangmi_sm4_modes::{
    Sm4Ccm, Sm4Cmac, Sm4Gcm, Sm4GcmSiv, Sm4XtsIeee,
    aead::{AeadInOut, Tag, consts::U12},
    cmac::digest::{InnerInit, Mac},
    cmac_many,
};

use super::{Row, sm4_on};

const XTS_KEY: [u8; 32] = [
    0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42,
    0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24,
];
const NONCE: [u8; 12] = [0x24; 12];
const AAD: [u8; 16] = [0x17; 16];
const TWEAK: [u8; 16] = [0x11; 16];

/// A seal row: one in-place seal per call.
fn seal<A: AeadInOut<NonceSize = U12> + 'static>(name: &'static str, a: A) -> Row {
    Row::new(name, 1, move |buf| {
        let tag = a
            .encrypt_inout_detached(&NONCE.into(), &AAD, buf.into())
            .expect("within the AEAD's limits");
        std::hint::black_box(tag);
    })
}

/// An open row: one in-place open per call that authenticates and succeeds (see the
/// module docs for the two alternating tags).
fn open<A: AeadInOut<NonceSize = U12> + 'static>(name: &'static str, a: A) -> Row {
    // The buffer (address and length) the tags were computed for, the tags of its two
    // states, and which state it is in now.
    let mut state: Option<(usize, usize, [Tag<A>; 2], usize)> = None;
    Row::new(name, 1, move |buf| {
        let key = (buf.as_ptr() as usize, buf.len());
        for attempt in 0..2 {
            let valid = matches!(&state, Some((p, l, _, _)) if (*p, *l) == key);
            if !valid || attempt == 1 {
                // Outside the steady state: seal X (tag of X ⊕ ks), then seal X ⊕ ks (tag
                // of X); the buffer holds X again.
                let seal = |buf: &mut [u8]| {
                    a.encrypt_inout_detached(&NONCE.into(), &AAD, buf.into())
                        .expect("within the AEAD's limits")
                };
                let of_xored = seal(buf);
                let of_x = seal(buf);
                state = Some((key.0, key.1, [of_x, of_xored], 0));
            }
            let Some((_, _, tags, which)) = &mut state else {
                unreachable!("set above")
            };
            if a.decrypt_inout_detached(&NONCE.into(), &AAD, (&mut *buf).into(), &tags[*which])
                .is_ok()
            {
                *which ^= 1;
                return;
            }
            // The buffer changed under us (failed opens leave it as it was): recompute.
        }
        panic!("{name}: a freshly computed tag did not verify");
    })
}

/// The mode rows with SM4 on `engine`, which the caller checked is available.
pub fn rows(engine: Backend) -> Vec<Row> {
    let gcm = || Sm4Gcm::from_cipher(sm4_on(engine));
    let ccm = || Sm4Ccm::from_cipher(sm4_on(engine));
    let xts = || {
        Sm4XtsIeee::with_backend(&XTS_KEY, engine)
            .unwrap_or_else(|e| panic!("engine checked by the caller: {e}"))
    };
    let (xts_enc, xts_dec) = (xts(), xts());
    let cmac_cipher = sm4_on(engine);
    let cmac_many_cipher = sm4_on(engine);
    vec![
        seal("sm4-gcm-seal", gcm()),
        open("sm4-gcm-open", gcm()),
        seal("sm4-ccm-seal", ccm()),
        open("sm4-ccm-open", ccm()),
        seal("sm4-gcm-siv-seal", Sm4GcmSiv::from_cipher(sm4_on(engine))),
        Row::new("sm4-xts-enc", 16, move |buf| {
            xts_enc.encrypt(&TWEAK, buf).expect("16 bytes to 16 MiB")
        }),
        Row::new("sm4-xts-dec", 16, move |buf| {
            xts_dec.decrypt(&TWEAK, buf).expect("16 bytes to 16 MiB")
        }),
        Row::new("sm4-cmac", 1, move |buf| {
            let mut mac = Sm4Cmac::inner_init(cmac_cipher.clone());
            mac.update(buf);
            std::hint::black_box(mac.finalize().into_bytes());
        }),
        Row::new("sm4-cmac-many16", 1, move |buf| {
            let mut tags = [[0u8; 16]; 16];
            cmac_many(&cmac_many_cipher, &[&*buf; 16], &mut tags).expect("as many tags");
            std::hint::black_box(tags);
        })
        .copies(16),
    ]
}
