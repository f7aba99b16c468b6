//! Differential test against emmansun/gmsm v0.44.0: `data/gmsm_v0.44.0.txt` holds the
//! outputs of gmsm's DRBGs for fixed inputs, written by `benches/peers/drbg` (a Go program
//! over gmsm's public API; Go is not needed to run this test). Each line: kind, entropy,
//! nonce, personalization, reseed entropy, reseed additional input, additional inputs 1
//! and 2, then the outputs of generate(add1), [reseed], generate(add2), generate().

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use shangmi_drbg::{Clock, CtrDrbg, Drbg, GmLevel1, HashDrbg, HmacDrbg, NoClock, Sp800_90a};
use shangmi_sm3::Sm3;
use shangmi_sm4::Sm4;

const DATA: &str = include_str!("data/gmsm_v0.44.0.txt");

/// A clock that stands still (the GM profiles need one; these runs take no time).
#[derive(Clone, Copy)]
struct Fixed;

impl Clock for Fixed {
    fn now_seconds(&self) -> u64 {
        0
    }
}

fn field(s: &str) -> Vec<u8> {
    if s == "-" {
        Vec::new()
    } else {
        hex::decode(s).unwrap()
    }
}

fn replay<D: Drbg>(clock: D::Clock, f: &[Vec<u8>]) -> [Vec<u8>; 3] {
    let mut drbg = D::new(&f[0], &f[1], &f[2], clock).unwrap();
    let len = f[7].len();
    let mut out = [vec![0u8; len], vec![0u8; len], vec![0u8; len]];
    drbg.generate(&mut out[0], &f[5]).unwrap();
    drbg.reseed(&f[3], &f[4]).unwrap();
    drbg.generate(&mut out[1], &f[6]).unwrap();
    drbg.generate(&mut out[2], &[]).unwrap();
    out
}

#[test]
fn diff_gmsm_outputs() {
    let mut checked = std::collections::BTreeMap::<&str, usize>::new();
    for line in DATA.lines() {
        let mut words = line.split(' ');
        let kind = words.next().unwrap();
        let f: Vec<Vec<u8>> = words.map(field).collect();
        assert_eq!(f.len(), 10, "{line}");
        let expected = [f[7].clone(), f[8].clone(), f[9].clone()];
        let mut runs = vec![match kind {
            "gm-hash-sm3" => replay::<HashDrbg<Sm3, GmLevel1, Fixed>>(Fixed, &f),
            "gm-ctr-sm4" => replay::<CtrDrbg<Sm4, GmLevel1, Fixed>>(Fixed, &f),
            "nist-hash-sm3" => replay::<HashDrbg<Sm3, Sp800_90a, NoClock>>(NoClock, &f),
            "nist-ctr-sm4" => replay::<CtrDrbg<Sm4, Sp800_90a, NoClock>>(NoClock, &f),
            "nist-hmac-sm3" => replay::<HmacDrbg<Sm3, Sp800_90a, NoClock>>(NoClock, &f),
            _ => panic!("unknown kind {kind}"),
        }];
        // gmsm has no HMAC_DRBG under GM/T 0105; ours runs the same construction under
        // its limits, so requests of one hash output must agree.
        if kind == "nist-hmac-sm3" && f[7].len() <= 32 {
            runs.push(replay::<HmacDrbg<Sm3, GmLevel1, Fixed>>(Fixed, &f));
        }
        for run in runs {
            assert_eq!(run, expected, "{kind}: {line}");
            *checked.entry(kind).or_default() += 1;
        }
    }
    // Every kind the file should hold was checked, with requests above one block where the
    // profile allows.
    for (kind, n) in [
        ("gm-hash-sm3", 4),
        ("gm-ctr-sm4", 4),
        ("nist-hash-sm3", 4),
        ("nist-ctr-sm4", 4),
        ("nist-hmac-sm3", 12),
    ] {
        assert_eq!(checked.get(kind), Some(&n), "{kind}");
    }
}
