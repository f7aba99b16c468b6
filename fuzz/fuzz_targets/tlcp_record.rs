//! TLCP record protection (`shangmi_tlcp::record`): arbitrary fragments opened under
//! SM4-CBC + HMAC-SM3 and SM4-GCM keys never panic and are refused unless they are a
//! sealed record; the constant-time CBC check on arbitrary decrypted bodies never panics
//! and never returns a length beyond the body; sealing then opening returns the input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shangmi_tlcp::CipherSuite;
use shangmi_tlcp::record::{RecordProtection, cbc_check};

fuzz_target!(|data: &[u8]| {
    let cbc = RecordProtection::new(CipherSuite::EccSm4CbcSm3, &[1; 32], &[2; 16], &[3; 16])
        .expect("CBC keys");
    let gcm =
        RecordProtection::new(CipherSuite::EccSm4GcmSm3, &[], &[2; 16], &[3; 4]).expect("GCM keys");
    let (seq, typ) = (data.len() as u64, 23u8);
    // Random bytes are (overwhelmingly) refused; they must not panic.
    let _ = cbc.open(seq, typ, data);
    let _ = gcm.open(seq, typ, data);
    if let Ok(n) = cbc_check(&[1; 32], seq, typ, data) {
        assert!(n + 33 <= data.len());
    }
    let msg = &data[..data.len().min(16384)];
    let iv = [7u8; 16];
    for p in [&cbc, &gcm] {
        let rec = p.seal(seq, typ, msg, &iv);
        assert_eq!(p.open(seq, typ, &rec).expect("round trip"), msg);
        if !rec.is_empty() {
            let mut bad = rec.clone();
            let i = data.first().map_or(0, |b| usize::from(*b)) % bad.len();
            bad[i] ^= 0x80;
            assert!(p.open(seq, typ, &bad).is_err());
        }
    }
});
