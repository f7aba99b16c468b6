//! Known-answer tests for SM3, every engine available on this machine.

// Test and measurement code: a failed unwrap is a failed run.
#![allow(clippy::unwrap_used)]

use hex_literal::hex;
use shangmi_sm3::{Backend, Digest, Sm3};

fn digest_on(backend: Backend, msg: &[u8]) -> [u8; 32] {
    let mut h = Sm3::with_backend(backend).expect("listed as available");
    h.update(msg);
    h.finalize().into()
}

/// GB/T 32905-2016 appendix A.1 (also GM/T 0004-2012 A.1): "abc".
const ABC: [u8; 32] = hex!("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0");
/// GB/T 32905-2016 appendix A.2 (also GM/T 0004-2012 A.2): "abcd" repeated 16 times.
const ABCD16: [u8; 32] = hex!("debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732");

#[test]
fn gbt32905_appendix_a() {
    let abcd16 = b"abcd".repeat(16);
    for b in Backend::available() {
        assert_eq!(digest_on(b, b"abc"), ABC, "engine {b}");
        assert_eq!(digest_on(b, &abcd16), ABCD16, "engine {b}");
    }
    assert_eq!(<[u8; 32]>::from(Sm3::digest(b"abc")), ABC);
}

#[test]
fn reset_and_finalize_reset() {
    use digest::FixedOutputReset;
    let mut h = Sm3::new();
    h.update(b"garbage that must be forgotten");
    Digest::reset(&mut h);
    h.update(b"abc");
    let first = h.finalize_fixed_reset();
    assert_eq!(<[u8; 32]>::from(first), ABC);
    h.update(b"abc");
    assert_eq!(<[u8; 32]>::from(h.finalize()), ABC);
}

#[test]
fn clone_mid_stream() {
    let mut h = Sm3::new();
    h.update(b"ab");
    let g = h.clone();
    h.update(b"c");
    assert_eq!(<[u8; 32]>::from(h.finalize()), ABC);
    assert_eq!(g.finalize()[..], Sm3::digest(b"ab")[..]);
}

#[test]
fn backend_names_parse_and_best_is_available() {
    let best = shangmi_sm3::backend();
    assert_eq!(best.name().parse::<Backend>(), Ok(best));
    println!("best SM3 engine here: {best}");
    assert!(best.is_available());
    assert_eq!(Backend::available().next(), Some(best));
    assert!(Backend::Soft.is_available());
    assert!("no-such-engine".parse::<Backend>().is_err());
    for b in Backend::ALL {
        assert_eq!(b.name().parse::<Backend>().unwrap(), b);
        assert_eq!(Sm3::with_backend(b).is_ok(), b.is_available());
    }
    #[cfg(shangmi_backend = "soft")]
    assert_eq!(shangmi_sm3::backend(), Backend::Soft);
}

#[test]
fn algorithm_name_and_sizes() {
    use digest::{OutputSizeUser, block_api::BlockSizeUser};
    assert_eq!(<Sm3 as OutputSizeUser>::output_size(), 32);
    assert_eq!(<Sm3 as BlockSizeUser>::block_size(), 64);
    assert_eq!(format!("{:?}", Sm3::new()), "Sm3 { ... }");
}

/// With the `oid` feature, `Sm3` carries the GM/T OID (GM/T 0006-2012: 1.2.156.10197.1.401).
#[cfg(feature = "oid")]
#[test]
fn oid_is_the_gmt_one() {
    use digest::const_oid::AssociatedOid;
    assert_eq!(Sm3::OID.to_string(), "1.2.156.10197.1.401");
}

/// With the `zeroize` feature, `Sm3` wipes its state and buffer on drop.
#[cfg(feature = "zeroize")]
#[test]
fn zeroize_on_drop_is_implemented() {
    fn wipes<T: digest::zeroize::ZeroizeOnDrop>(_: &T) {}
    wipes(&Sm3::new());
    wipes(&shangmi_sm3::Sm3Core::default());
}
