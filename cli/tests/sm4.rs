//! `shangmi sm4`: CBC/CTR byte-identical to `openssl enc` in both directions, the GB/T
//! 32907 example through the command, XTS framing against the library, and the
//! authenticated stream format's refusals (tampering, truncation, reordering, appending,
//! wrong key or mode) leaving no output file.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{at, bytes, exits_with, ok, openssl, run, scratch, shangmi, sm4};
use shangmi_sm4_modes::Sm4XtsGb;

/// GB/T 32907-2016 Appendix A.1: this key encrypts itself (as plaintext) to CIPHER.
const KEY: &str = "0123456789abcdeffedcba9876543210";
const CIPHER: &str = "681edf34d206965e86b3e94f536e4246";
const IV: &str = "000102030405060708090a0b0c0d0e0f";
/// Sizes around the block, the pipeline's 1 MiB buffers and the stream's 64 KiB chunks.
const SIZES: [usize; 12] = [
    0,
    1,
    15,
    16,
    17,
    65535,
    65536,
    65537,
    2 * 65536,
    1 << 20,
    (1 << 20) + 1,
    (1 << 21) + 100,
];

#[test]
fn gbt32907_example_through_cbc_with_a_zero_iv() {
    let dir = scratch();
    let d = dir.path();
    std::fs::write(at(d, "p"), hex::decode(KEY).unwrap()).unwrap();
    ok(sm4("encrypt", "cbc", KEY, &at(d, "p"), &at(d, "c")).args(["--iv", &"00".repeat(16)]));
    let c = std::fs::read(at(d, "c")).unwrap();
    // One block of data and one block of PKCS#7 padding; the first is E(K, P ^ 0).
    assert_eq!(c.len(), 32);
    assert_eq!(hex::encode(&c[..16]), CIPHER);
}

#[test]
fn diff_openssl_enc_cbc_and_ctr_both_ways() {
    let dir = scratch();
    let d = dir.path();
    for (i, size) in SIZES.into_iter().enumerate() {
        let plain = bytes(size, i as u32);
        std::fs::write(at(d, "p"), &plain).unwrap();
        for mode in ["cbc", "ctr"] {
            ok(sm4("encrypt", mode, KEY, &at(d, "p"), &at(d, "ours")).args(["--iv", IV]));
            // Standard input to standard output decrypts it back.
            let ours = std::fs::read(at(d, "ours")).unwrap();
            let mut cmd = shangmi();
            cmd.args(["sm4", "decrypt", "--mode", mode, "--key", KEY, "--iv", IV]);
            let back = run(&mut cmd, &ours);
            assert!(back.status.success(), "{mode} {size}");
            assert_eq!(back.stdout, plain, "{mode} {size}");

            let Some(mut openssl) = openssl("diff_openssl_enc_cbc_and_ctr_both_ways") else {
                continue;
            };
            let cipher = format!("-sm4-{mode}");
            ok(openssl
                .args(["enc", &cipher, "-K", KEY, "-iv", IV, "-in"])
                .arg(at(d, "p"))
                .arg("-out")
                .arg(at(d, "theirs")));
            assert_eq!(
                std::fs::read(at(d, "theirs")).unwrap(),
                ours,
                "{mode} {size}"
            );
            // OpenSSL decrypts ours, and we decrypt theirs (the same bytes, both checked).
            let mut openssl = common::openssl("").unwrap();
            let theirs_back = ok(openssl
                .args(["enc", "-d", &cipher, "-K", KEY, "-iv", IV, "-in"])
                .arg(at(d, "ours")));
            assert_eq!(theirs_back, plain, "{mode} {size}");
            ok(sm4("decrypt", mode, KEY, &at(d, "theirs"), &at(d, "back")).args(["--iv", IV]));
            assert_eq!(
                std::fs::read(at(d, "back")).unwrap(),
                plain,
                "{mode} {size}"
            );
        }
    }
}

#[test]
fn cbc_refuses_bad_padding_and_ragged_input_without_output() {
    let dir = scratch();
    let d = dir.path();
    std::fs::write(at(d, "p"), bytes(100, 1)).unwrap();
    ok(sm4("encrypt", "cbc", KEY, &at(d, "p"), &at(d, "c")).args(["--iv", IV]));
    let wrong_key = "00112233445566778899aabbccddeeff";
    let out = exits_with(
        sm4("decrypt", "cbc", wrong_key, &at(d, "c"), &at(d, "x")).args(["--iv", IV]),
        1,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad decrypt"));
    assert!(!at(d, "x").exists());
    std::fs::write(at(d, "ragged"), bytes(33, 2)).unwrap();
    exits_with(
        sm4("decrypt", "cbc", KEY, &at(d, "ragged"), &at(d, "x")).args(["--iv", IV]),
        1,
    );
    assert!(!at(d, "x").exists());
}

#[test]
fn xts_encrypts_each_data_unit_under_its_sector_tweak() {
    let dir = scratch();
    let d = dir.path();
    let key = format!("{KEY}{IV}");
    let plain = bytes(3 * 4096 + 100, 7);
    std::fs::write(at(d, "p"), &plain).unwrap();
    ok(sm4("encrypt", "xts", &key, &at(d, "p"), &at(d, "c")).args(["--iv", &"00".repeat(16)]));
    let c = std::fs::read(at(d, "c")).unwrap();
    let xts = Sm4XtsGb::new(&hex::decode(&key).unwrap().try_into().unwrap()).unwrap();
    let mut expect = plain.clone();
    for (n, unit) in expect.chunks_mut(4096).enumerate() {
        xts.encrypt_sector(n as u64, unit).unwrap();
    }
    assert_eq!(c, expect);
    ok(sm4("decrypt", "xts", &key, &at(d, "c"), &at(d, "back")).args(["--iv", &"00".repeat(16)]));
    assert_eq!(std::fs::read(at(d, "back")).unwrap(), plain);
    // A last unit under 16 bytes cannot be XTS-encrypted: an error, no output.
    std::fs::write(at(d, "short"), bytes(4096 + 5, 8)).unwrap();
    exits_with(
        sm4("encrypt", "xts", &key, &at(d, "short"), &at(d, "x")).args(["--iv", IV]),
        1,
    );
    assert!(!at(d, "x").exists());
}

#[test]
fn stream_format_round_trips_and_has_the_documented_length() {
    let dir = scratch();
    let d = dir.path();
    for mode in ["gcm", "ccm"] {
        for (i, size) in SIZES.into_iter().enumerate() {
            if mode == "ccm" && size > 65536 * 2 {
                continue; // CCM is slow; the chunking is the same code as GCM's.
            }
            let plain = bytes(size, 100 + i as u32);
            std::fs::write(at(d, "p"), &plain).unwrap();
            ok(sm4("encrypt", mode, KEY, &at(d, "p"), &at(d, "s")));
            let sealed = std::fs::read(at(d, "s")).unwrap();
            let chunks = size.div_ceil(65536).max(1);
            assert_eq!(sealed.len(), 33 + size + 16 * chunks, "{mode} {size}");
            let aead = if mode == "gcm" { 1 } else { 2 };
            assert_eq!(
                sealed[..10],
                [b'S', b'M', b'4', b'S', b'T', b'R', b'M', 1, aead, 16]
            );
            ok(sm4("decrypt", mode, KEY, &at(d, "s"), &at(d, "back")));
            assert_eq!(
                std::fs::read(at(d, "back")).unwrap(),
                plain,
                "{mode} {size}"
            );
        }
    }
    // Two encryptions of one file differ (fresh salt and nonce prefix).
    ok(sm4("encrypt", "gcm", KEY, &at(d, "p"), &at(d, "s1")));
    ok(sm4("encrypt", "gcm", KEY, &at(d, "p"), &at(d, "s2")));
    assert_ne!(
        std::fs::read(at(d, "s1")).unwrap(),
        std::fs::read(at(d, "s2")).unwrap()
    );
}

#[test]
fn stream_format_refuses_every_change_and_leaves_no_output() {
    let dir = scratch();
    let d = dir.path();
    let plain = bytes(3 * 65536 + 1000, 9);
    std::fs::write(at(d, "p"), &plain).unwrap();
    ok(sm4("encrypt", "gcm", KEY, &at(d, "p"), &at(d, "s")));
    let s = std::fs::read(at(d, "s")).unwrap();
    let (h, c) = (33, 65536 + 16);
    let mut flipped = s.clone();
    flipped[h + c + 100] ^= 1;
    let mut header = s.clone();
    header[20] ^= 1;
    let swapped = [&s[..h], &s[h + c..h + 2 * c], &s[h..h + c], &s[h + 2 * c..]].concat();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a flipped bit", flipped),
        ("a changed header", header),
        ("truncation at a chunk boundary", s[..h + 2 * c].to_vec()),
        ("truncation inside a chunk", s[..s.len() - 7].to_vec()),
        ("an appended byte", [&s[..], b"x"].concat()),
        ("swapped chunks", swapped),
        ("a dropped last chunk", s[..h + 3 * c].to_vec()),
        ("only the header", s[..h].to_vec()),
        ("half a header", s[..20].to_vec()),
    ];
    // The control: the untouched file decrypts, so each refusal is the change's doing.
    ok(sm4("decrypt", "gcm", KEY, &at(d, "s"), &at(d, "out")));
    std::fs::remove_file(at(d, "out")).unwrap();
    for (what, bad) in cases {
        std::fs::write(at(d, "bad"), &bad).unwrap();
        let out = run(
            &mut sm4("decrypt", "gcm", KEY, &at(d, "bad"), &at(d, "out")),
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{what}");
        assert!(!at(d, "out").exists(), "{what}: output left behind");
        let leftovers = std::fs::read_dir(d).unwrap().count();
        assert_eq!(leftovers, 3, "{what}: a temporary file was left behind");
    }
    let wrong_key = "00112233445566778899aabbccddeeff";
    exits_with(
        &mut sm4("decrypt", "gcm", wrong_key, &at(d, "s"), &at(d, "out")),
        1,
    );
    let out = exits_with(
        &mut sm4("decrypt", "ccm", KEY, &at(d, "s"), &at(d, "out")),
        1,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("sealed with --mode gcm"));
    assert!(!at(d, "out").exists());
}

#[test]
fn keys_from_files_and_bad_options() {
    let dir = scratch();
    let d = dir.path();
    std::fs::write(at(d, "p"), b"hello").unwrap();
    std::fs::write(at(d, "hexkey"), format!("{KEY}\n")).unwrap();
    std::fs::write(at(d, "rawkey"), hex::decode(KEY).unwrap()).unwrap();
    let mut outs = vec![];
    for file in ["hexkey", "rawkey"] {
        let mut cmd = shangmi();
        cmd.args(["sm4", "encrypt", "--mode", "ctr", "--iv", IV, "--key-file"])
            .arg(at(d, file))
            .arg("--in")
            .arg(at(d, "p"));
        outs.push(ok(&mut cmd));
    }
    assert_eq!(outs[0], outs[1]);
    for args in [
        &["--mode", "cbc", "--key", KEY][..],            // no IV
        &["--mode", "gcm", "--key", KEY, "--iv", IV],    // IV for the stream format
        &["--mode", "cbc", "--key", "0011", "--iv", IV], // short key
        &["--mode", "cbc", "--key", KEY, "--iv", "00"],  // short IV
        &["--mode", "ecb", "--key", KEY, "--iv", IV],    // no such mode
        &["--mode", "xts", "--key", KEY, "--iv", IV],    // XTS wants 32 bytes
    ] {
        let mut cmd = shangmi();
        cmd.args(["sm4", "encrypt"])
            .args(args)
            .arg("--in")
            .arg(at(d, "p"));
        assert_eq!(run(&mut cmd, b"").status.code(), Some(2), "{args:?}");
    }
    let out = exits_with(
        &mut sm4("encrypt", "gcm", KEY, &at(d, "nosuch"), &at(d, "x")),
        1,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("nosuch: No such file or directory"));
}

#[test]
fn stream_format_through_standard_input_and_output() {
    let plain = bytes(200_000, 11);
    let mut enc = shangmi();
    enc.args(["sm4", "encrypt", "--mode", "gcm", "--key", KEY]);
    let sealed = run(&mut enc, &plain);
    assert!(sealed.status.success());
    let mut dec = shangmi();
    dec.args(["sm4", "decrypt", "--mode", "gcm", "--key", KEY]);
    let opened = run(&mut dec, &sealed.stdout);
    assert!(opened.status.success());
    assert_eq!(opened.stdout, plain);
    // On standard output, verified chunks before a bad one may be out already; the status
    // and the message say so.
    let mut bad = sealed.stdout.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let mut dec = shangmi();
    dec.args(["sm4", "decrypt", "--mode", "gcm", "--key", KEY]);
    let refused = run(&mut dec, &bad);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("standard output"));
    // What did reach standard output is verified plaintext: whole chunks from the start.
    assert!(refused.stdout.len().is_multiple_of(65536) && plain.starts_with(&refused.stdout));
}
