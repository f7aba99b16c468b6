//! GmSSL 3.3's SDF tools (`gmssl sdfexport`, `gmssl sdfsign`), run against the test device
//! (`testdevice/sdf`) as any vendor's library, recorded here so that CI checks what a real
//! SDF client got from our fixture: the same public key our backend reads, and a signature
//! that verifies over SM3(Z_A ‖ M) with the default ID.
//!
//! Recorded 2026-11-29 with GmSSL 3.3 (24ae482), built by hand in a scratch directory:
//! `gmssl sdfexport -lib libshangmi_testdevice_sdf.so -sign -key 1` and
//! `gmssl sdfsign -lib libshangmi_testdevice_sdf.so -key 1 -pass 123456 -in msg`.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use shangmi_sdf::{KeyUsage, SdfDevice};
use shangmi_sm2::dsa::{Signature, VerifyingKey};
use support::library;

/// The message GmSSL signed.
const MESSAGE: &[u8] = b"hello softsdf\n";

/// The sign public key of index 1 as `gmssl sdfexport -sign -key 1` printed it (the SPKI's
/// uncompressed point).
const GMSSL_EXPORTED: &str = "04b7de9d5b3554c3c9bf97b39dffad66efcd20a292a5ce49d139e892b6dde039bf\
408ee8e78648302f3b73b7020dd0291e7b0cb7e1c4c4765fbe3858dec07b87b1";

/// `gmssl sdfsign -key 1` over `MESSAGE` (DER).
const GMSSL_SIGNATURE: &str = "304402203fd1013f561d25e881045e83e4b555db4875a7f1eb3a3441841ef058\
3ea17d8b02206aa6616c4a21e3060c4e635db3b365c0561ce61c9d262e99edc5daf3f016638d";

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn diff_gmssl_sdfexport_reads_the_key_we_read() {
    let device = SdfDevice::open(library()).unwrap();
    let ours = VerifyingKey::new(&device.public_key(1, KeyUsage::Sign).unwrap());
    assert_eq!(ours.to_sec1_point(false).as_ref(), unhex(GMSSL_EXPORTED));
}

#[test]
fn diff_gmssl_sdfsign_signature_verifies() {
    let vk = VerifyingKey::from_sec1_bytes(&unhex(GMSSL_EXPORTED)).unwrap();
    let sig = Signature::from_der(&unhex(GMSSL_SIGNATURE)).unwrap();
    vk.verify_e(&vk.hash_message(MESSAGE), &sig).unwrap();
    // The same signature does not verify over another message.
    assert!(
        vk.verify_e(&vk.hash_message(b"hello softsdf"), &sig)
            .is_err()
    );
}
