//! TLCP wire messages (`shangmi_tlcp::msgs`): the first byte picks a message type, the rest
//! is its body. Checked: reading never panics; what reads as one whole message re-encodes to
//! exactly the bytes read (one spelling per value, so no two encodings of a message are
//! accepted) and reads back to the same value; the handshake framing carries its type and
//! length.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shangmi_tlcp::msgs::*;

fn check<T: HandshakeMessage + PartialEq + core::fmt::Debug>(body: &[u8]) {
    let Ok(v) = T::read_bytes(body) else {
        return;
    };
    let enc = v.to_bytes();
    assert_eq!(enc, body, "one encoding per value");
    assert_eq!(T::read_bytes(&enc).expect("reads its encoding"), v);
    let mut framed = Vec::new();
    v.encode_message(&mut framed);
    assert_eq!(framed[0], T::TYPE.to_u8());
    let len =
        (usize::from(framed[1]) << 16) | (usize::from(framed[2]) << 8) | usize::from(framed[3]);
    assert_eq!(&framed[4..], body);
    assert_eq!(len, body.len());
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else {
        return;
    };
    match which % 12 {
        0 => check::<ClientHello>(body),
        1 => check::<ServerHello>(body),
        2 => check::<Certificate<'static>>(body),
        3 => check::<ServerKeyExchangeEcc>(body),
        4 => check::<ServerKeyExchangeEcdhe>(body),
        5 => check::<CertificateRequest>(body),
        6 => check::<ServerHelloDone>(body),
        7 => check::<ClientKeyExchangeEcc>(body),
        8 => check::<ClientKeyExchangeEcdhe>(body),
        9 => check::<CertificateVerify>(body),
        10 => check::<Finished>(body),
        _ => check::<NewSessionTicket>(body),
    }
});
