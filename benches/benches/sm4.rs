//! SM4 throughput: every engine available here beside RustCrypto `sm4` and OpenSSL, one
//! criterion group per mode and size (`sm4/{ecb,cbc-enc,cbc-dec,ctr}/{16,1024,8192}`), so
//! the ratios come from one run. CBC and CTR compose each block cipher with RustCrypto's
//! `cbc` and `ctr` crates; our CTR is measured both fused (`Sm4::apply_ctr`, what
//! `shangmi-sm4-modes` uses) and through the `ctr` crate with the best engine.
//!
//! `cargo bench -p shangmi-benches -- sm4/ctr`

use cbc::cipher::{
    BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, KeyInit, StreamCipher,
    consts::U16,
};
use criterion::{
    BenchmarkGroup, Criterion, criterion_group, criterion_main, measurement::WallTime,
};
use openssl::symm::{Cipher, Crypter, Mode};
use shangmi_sm4::{Backend, CtrFlavor, Sm4, cipher::Block};

type Group<'a> = BenchmarkGroup<'a, WallTime>;

const KEY: [u8; 16] = [0x42; 16];
const IV: [u8; 16] = [0x24; 16];
const SIZES: [usize; 3] = [16, 1024, 8192];

/// Our cipher on every engine this CPU has, named `shangmi-<engine>`.
fn ours() -> Vec<(String, Sm4)> {
    Backend::available()
        .map(|b| {
            let sm4 = Sm4::with_backend(&KEY.into(), b).expect("listed as available");
            (format!("shangmi-{b}"), sm4)
        })
        .collect()
}

fn rustcrypto() -> rustcrypto_sm4::Sm4 {
    rustcrypto_sm4::Sm4::new(&KEY.into())
}

fn blocks(size: usize) -> Vec<Block<Sm4>> {
    vec![Block::<Sm4>::default(); size / 16]
}

fn group<'a>(c: &'a mut Criterion, mode: &str, size: usize) -> Group<'a> {
    shangmi_benches::bytes_group(c, format!("sm4/{mode}/{size}"), size)
}

/// `run` over one buffer of `size` bytes (whole blocks) each iteration, as `name`.
fn on_blocks(g: &mut Group, name: &str, size: usize, mut run: impl FnMut(&mut [Block<Sm4>])) {
    let mut buf = blocks(size);
    g.bench_function(name, |b| b.iter(|| run(&mut buf)));
}

fn ctr_crate_with<C: BlockCipherEncrypt<BlockSize = U16>>(
    g: &mut Group,
    name: &str,
    c: &C,
    size: usize,
) {
    let mut buf = vec![0u8; size];
    g.bench_function(name, |b| {
        b.iter(|| {
            let core = ctr::CtrCore::<_, ctr::flavors::Ctr128BE>::inner_iv_init(c, &IV.into());
            ctr::Ctr128BE::from_core(core).apply_keystream(&mut buf)
        })
    });
}

/// OpenSSL's EVP cipher, one `Crypter` for all iterations (the stream continues).
fn openssl(g: &mut Group, cipher: Cipher, mode: Mode, size: usize) {
    let mut c = Crypter::new(cipher, mode, &KEY, cipher.iv_len().map(|_| &IV[..]))
        .expect("OpenSSL has SM4");
    c.pad(false);
    let input = vec![0u8; size];
    let mut out = vec![0u8; size + 16];
    g.bench_function("openssl", |b| {
        b.iter(|| c.update(&input, &mut out).expect("whole blocks"))
    });
}

/// `fn $name`: a group per size for `$mode`, every engine of ours and RustCrypto's SM4
/// running `$run` (on the cipher `$c` and the blocks `$buf`), beside OpenSSL's `$cipher` in
/// direction `$dir`.
macro_rules! block_mode_bench {
    ($name:ident, $mode:literal, |$c:ident, $buf:ident| $run:expr, $cipher:expr, $dir:expr) => {
        fn $name(c: &mut Criterion) {
            for size in SIZES {
                let mut g = group(c, $mode, size);
                for (name, sm4) in ours() {
                    on_blocks(&mut g, &name, size, |$buf| {
                        let $c = &sm4;
                        $run
                    });
                }
                let theirs = rustcrypto();
                on_blocks(&mut g, "rustcrypto-sm4", size, |$buf| {
                    let $c = &theirs;
                    $run
                });
                openssl(&mut g, $cipher, $dir, size);
                g.finish();
            }
        }
    };
}

block_mode_bench!(
    ecb,
    "ecb",
    |c, buf| c.encrypt_blocks(buf),
    Cipher::sm4_ecb(),
    Mode::Encrypt
);
block_mode_bench!(
    cbc_enc,
    "cbc-enc",
    |c, buf| cbc::Encryptor::inner_iv_init(c, &IV.into()).encrypt_blocks(buf),
    Cipher::sm4_cbc(),
    Mode::Encrypt
);
block_mode_bench!(
    cbc_dec,
    "cbc-dec",
    |c, buf| cbc::Decryptor::inner_iv_init(c, &IV.into()).decrypt_blocks(buf),
    Cipher::sm4_cbc(),
    Mode::Decrypt
);

fn ctr(c: &mut Criterion) {
    for size in SIZES {
        let mut g = group(c, "ctr", size);
        for (name, sm4) in ours() {
            let mut buf = vec![0u8; size];
            g.bench_function(name, |b| {
                b.iter(|| sm4.apply_ctr(CtrFlavor::Be128, &mut IV.clone(), &mut buf))
            });
        }
        let best = Sm4::new(&KEY.into());
        ctr_crate_with(
            &mut g,
            &format!("shangmi-{}-ctr-crate", best.backend()),
            &best,
            size,
        );
        ctr_crate_with(&mut g, "rustcrypto-sm4", &rustcrypto(), size);
        openssl(&mut g, Cipher::sm4_ctr(), Mode::Encrypt, size);
        g.finish();
    }
}

criterion_group!(benches, ecb, cbc_enc, cbc_dec, ctr);
criterion_main!(benches);
