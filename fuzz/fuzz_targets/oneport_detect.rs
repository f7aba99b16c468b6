//! The one-port acceptor's first-record detector (`shangmi_tlcp::detect`): on arbitrary
//! bytes it never panics; it answers `None` only while the five header bytes are not all
//! there; a verdict, once given for a prefix, holds for every longer input (a refusal keeps
//! its alert, a protocol stays the same); TLCP means 16 01 01 and TLS 16 03 with a length
//! of 1..=2^14; the alert record is a well-formed fatal alert. `wants_sm` on suites and
//! schemes read from the input equals its definition.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shangmi_tlcp::detect::{
    HEADER_LEN, HELLO_VERSION_END, Protocol, check_tls_hello, detect, wants_sm,
};

fuzz_target!(|data: &[u8]| {
    let mut verdict = None;
    for end in 0..=data.len().min(HEADER_LEN + 2) {
        let got = detect(&data[..end]);
        match (&verdict, &got) {
            (None, Ok(None)) => assert!(end < HEADER_LEN),
            (None, _) => verdict = Some(got),
            (Some(Ok(Some(p))), now) => assert_eq!(*now, Ok(Some(*p))),
            (Some(Err(first)), Err(now)) => assert_eq!(first.alert(), now.alert()),
            (Some(before), now) => panic!("{before:?} then {now:?}"),
        }
    }
    match verdict {
        Some(Ok(Some(p))) => {
            let len = usize::from(u16::from_be_bytes([data[3], data[4]]));
            assert!((1..=16384).contains(&len));
            match p {
                Protocol::Tlcp => assert_eq!(data[..3], [22, 1, 1]),
                Protocol::Tls => assert_eq!(data[..2], [22, 3]),
            }
        }
        Some(Err(refusal)) => {
            for spoke in [None, Some(Protocol::Tlcp), Some(Protocol::Tls)] {
                let rec = refusal.alert_record(spoke);
                assert_eq!(rec[0], 21);
                assert_eq!(rec[3..6], [0, 2, 2]);
                assert_eq!(rec[6], refusal.alert().to_u8());
            }
        }
        _ => assert!(data.len() < HEADER_LEN),
    }

    // The ClientHello version check on a TLS first record: it waits only while the bytes
    // up to the version are missing, and its verdict holds for every longer input.
    if matches!(verdict, Some(Ok(Some(Protocol::Tls)))) {
        let mut settled = None;
        for end in HEADER_LEN..=data.len().min(HELLO_VERSION_END + 2) {
            let got = check_tls_hello(&data[..end]);
            match (&settled, &got) {
                (None, Ok(false)) => assert!(end < HELLO_VERSION_END),
                (None, _) => settled = Some(got),
                (Some(before), now) => assert_eq!(before, now),
            }
            if let Err(r) = got {
                assert_eq!(r.alert().to_u8(), 70);
                assert!(u16::from_be_bytes([data[9], data[10]]) < 0x0303);
            }
        }
    }

    // Suites from the first half, schemes from the second, two bytes each.
    let (a, b) = data.split_at(data.len() / 2);
    let pairs = |x: &[u8]| -> Vec<u16> {
        x.chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect()
    };
    let suites: Vec<rustls::CipherSuite> = pairs(a).into_iter().map(Into::into).collect();
    let schemes: Vec<rustls::SignatureScheme> = pairs(b).into_iter().map(Into::into).collect();
    let expected =
        pairs(a).iter().any(|s| *s == 0x00c6 || *s == 0x00c7) && pairs(b).contains(&0x0708);
    assert_eq!(wants_sm(&suites, &schemes), expected);
});
