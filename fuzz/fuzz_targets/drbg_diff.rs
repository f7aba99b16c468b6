//! Differential fuzzing of the DRBGs: each construction (Hash_DRBG, HMAC_DRBG, CTR_DRBG)
//! under a GM/T 0105 profile and under SP 800-90A, built once on our SM3/SM4 and once on
//! RustCrypto's `sm3`/`sm4`, runs the same sequence of instantiate, reseed, generate,
//! prediction-resistant generate and clock ticks: results and outputs must agree, refusals
//! must follow the length rules, and nothing may panic.
#![no_main]

use core::cell::Cell;
use libfuzzer_sys::{
    arbitrary::{self, Arbitrary},
    fuzz_target,
};
use shangmi_drbg::{Clock, CtrDrbg, Drbg, Error, GmLevel2, HashDrbg, HmacDrbg, Sp800_90a};

#[derive(Arbitrary, Debug)]
enum Op {
    Reseed {
        entropy: Vec<u8>,
        additional: Vec<u8>,
    },
    Generate {
        len: u16,
        additional: Vec<u8>,
    },
    Predict {
        entropy: Vec<u8>,
        additional: Vec<u8>,
        len: u16,
    },
    Tick(u8),
}

#[derive(Arbitrary, Debug)]
struct Input {
    kind: u8,
    entropy: Vec<u8>,
    nonce: Vec<u8>,
    personalization: Vec<u8>,
    ops: Vec<Op>,
}

/// The fuzzer's clock, shared by both DRBGs of a run.
#[derive(Clone, Copy)]
struct Ticks<'a>(&'a Cell<u64>);

impl Clock for Ticks<'_> {
    fn now_seconds(&self) -> u64 {
        self.0.get()
    }
}

fn run<'a, A, B>(input: &Input, clock: &'a Cell<u64>)
where
    A: Drbg<Clock = Ticks<'a>>,
    B: Drbg<Clock = Ticks<'a>>,
{
    assert_eq!(A::max_request_len(), B::max_request_len());
    let max = A::max_request_len();
    let (e, n, p) = (&input.entropy, &input.nonce, &input.personalization);
    let (a, b) = (A::new(e, n, p, Ticks(clock)), B::new(e, n, p, Ticks(clock)));
    let short = e.len() < A::min_entropy_len() || n.len() < A::min_nonce_len() || n.is_empty();
    assert_eq!(a.is_err(), short, "instantiate refusal");
    let (mut a, mut b) = match (a, b) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(ea), Err(eb)) => {
            assert_eq!(ea, eb);
            let expected = if e.len() < A::min_entropy_len() {
                Error::EntropyTooShort
            } else {
                Error::NonceTooShort
            };
            assert_eq!(ea, expected);
            return;
        }
        _ => panic!("one implementation refused, the other not"),
    };
    for op in input.ops.iter().take(64) {
        match op {
            Op::Reseed {
                entropy,
                additional,
            } => {
                let (ra, rb) = (a.reseed(entropy, additional), b.reseed(entropy, additional));
                assert_eq!(ra, rb);
                assert_eq!(
                    ra.is_err(),
                    entropy.len() < A::min_entropy_len() || entropy.is_empty()
                );
            }
            Op::Generate { len, additional } => {
                let len = usize::from(*len) * 2;
                let (mut x, mut y) = (vec![0u8; len], vec![0u8; len]);
                let due = a.reseed_required();
                let (ra, rb) = (
                    a.generate(&mut x, additional),
                    b.generate(&mut y, additional),
                );
                assert_eq!(ra, rb);
                assert_eq!(x, y);
                match ra {
                    Err(Error::RequestTooLarge) => assert!(len > max),
                    Err(Error::ReseedRequired) => assert!(due && len <= max),
                    Err(other) => panic!("unexpected {other:?}"),
                    Ok(()) => assert!(!due && len <= max),
                }
            }
            Op::Predict {
                entropy,
                additional,
                len,
            } => {
                let len = usize::from(*len) * 2;
                let (mut x, mut y) = (vec![0u8; len], vec![0u8; len]);
                let ra = a.generate_with_prediction_resistance(entropy, additional, &mut x);
                let rb = b.generate_with_prediction_resistance(entropy, additional, &mut y);
                assert_eq!(ra, rb);
                assert_eq!(x, y);
                if ra.is_ok() {
                    assert!(len <= max && entropy.len() >= A::min_entropy_len());
                }
            }
            Op::Tick(seconds) => clock.set(clock.get() + u64::from(*seconds)),
        }
    }
}

type Ours = shangmi_sm3::Sm3;
type Theirs = rustcrypto_sm3::Sm3;

fuzz_target!(|input: Input| {
    let clock = Cell::new(0);
    match input.kind % 6 {
        0 => run::<HashDrbg<Ours, GmLevel2, _>, HashDrbg<Theirs, GmLevel2, _>>(&input, &clock),
        1 => run::<HashDrbg<Ours, Sp800_90a, _>, HashDrbg<Theirs, Sp800_90a, _>>(&input, &clock),
        2 => run::<HmacDrbg<Ours, GmLevel2, _>, HmacDrbg<Theirs, GmLevel2, _>>(&input, &clock),
        3 => run::<HmacDrbg<Ours, Sp800_90a, _>, HmacDrbg<Theirs, Sp800_90a, _>>(&input, &clock),
        4 => {
            run::<CtrDrbg<shangmi_sm4::Sm4, GmLevel2, _>, CtrDrbg<rustcrypto_sm4::Sm4, GmLevel2, _>>(
                &input, &clock,
            )
        }
        _ => run::<
            CtrDrbg<shangmi_sm4::Sm4, Sp800_90a, _>,
            CtrDrbg<rustcrypto_sm4::Sm4, Sp800_90a, _>,
        >(&input, &clock),
    }
});
