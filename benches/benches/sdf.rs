//! The cost of keys that stay in a crypto device, on the repository's SDF test device
//! (`testdevice/sdf`, a GM/T 0018 library in software over shangmi's own SM2, loaded at run
//! time through `shangmi-sdf`), beside the same operations with in-memory keys:
//!
//! - `sdf/sign`: one SM2 signature of a prepared digest (`PrivateKeyOps::sign_digest`);
//! - `sdf/decrypt`: one SM2 decryption of a 48-byte TLCP premaster;
//! - `sdf/tlcp-handshake`: a full ECC_SM4_GCM_SM3 handshake (client and server in one
//!   process over memory), the server's sign and encryption keys in memory or in the
//!   device, each measured twice in the order A B A B (the machine's load drifts).
//!
//! What the device path adds is the FFI call, a session from the key's pool, the
//! `ECCSignature`/`ECCCipher` structures, C1's curve check on both sides of the interface,
//! and the test device's own bookkeeping (its session table, its loaded keys).
//!
//! `cargo bench -p shangmi-benches --bench sdf`

// The TLCP tests' in-memory driver (`connect`: one full handshake over memory).
#[path = "../../tlcp/tests/common/mod.rs"]
mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use der::Encode;
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_sdf::{KeyUsage, Pin, PoolOptions, SdfDevice, SdfKey};
use shangmi_sm2::pke::EncryptingKey;
use shangmi_sm2::{PrivateKeyOps, SecretKey};
use shangmi_tlcp::{
    CertificateDer, CipherSuite, ClientConfig, RootCertStore, ServerConfig, Sm2EncKey,
    Sm2PrivateKey, Sm2SignKey,
};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The test device's library: cargo writes a dependency's cdylib into the `deps` directory
/// that holds the bench binary (or the directory above it).
fn library() -> PathBuf {
    let exe = std::env::current_exe().expect("bench binary path");
    let deps = exe.parent().expect("deps directory");
    let name = format!(
        "{}shangmi_testdevice_sdf{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [deps, deps.parent().expect("profile directory")]
        .iter()
        .map(|d| d.join(&name))
        .find(|p| p.exists())
        .expect("the test device library")
}

fn device_key(device: &SdfDevice, usage: KeyUsage) -> Arc<SdfKey> {
    // The test device's default PIN (testdevice/sdf/src/lib.rs).
    let pin = Pin::new("123456");
    Arc::new(SdfKey::open(device, 1, usage, pin, PoolOptions::default()).expect("device key"))
}

fn memory_key(label: &[u8]) -> SecretKey {
    use shangmi_sm3::Digest;
    let seed = shangmi_sm3::Sm3::digest(label);
    SecretKey::from_slice(&seed).expect("a valid scalar")
}

fn sign_and_decrypt(c: &mut Criterion, device: &SdfDevice) {
    let e = [0x5au8; 32];
    let memory = Sm2PrivateKey::new(memory_key(b"memory")).expect("key");
    let sign = device_key(device, KeyUsage::Sign);
    let mut g = c.benchmark_group("sdf/sign");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("memory", |b| {
        b.iter(|| memory.sign_digest(&e).expect("sign"))
    });
    g.bench_function("device", |b| b.iter(|| sign.sign_digest(&e).expect("sign")));
    g.finish();

    let enc = device_key(device, KeyUsage::Encrypt);
    let premaster = [0x03u8; 48];
    let mut rng = getrandom::SysRng;
    let to_memory = EncryptingKey::new(memory.public_key())
        .encrypt(&mut rng, &premaster, shangmi_sm2::pke::Layout::C1C3C2)
        .expect("encrypt");
    let to_device = EncryptingKey::new(enc.public_key())
        .encrypt(&mut rng, &premaster, shangmi_sm2::pke::Layout::C1C3C2)
        .expect("encrypt");
    let mut out = [0u8; 48];
    let mut g = c.benchmark_group("sdf/decrypt");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("memory", |b| {
        b.iter(|| memory.decrypt_into(&to_memory, &mut out).expect("decrypt"))
    });
    g.bench_function("device", |b| {
        b.iter(|| enc.decrypt_into(&to_device, &mut out).expect("decrypt"))
    });
    g.finish();

    // A TLCP server's key work per ECC handshake, through the TLCP key traits: the
    // ServerKeyExchange signature (over ~600 bytes) and the premaster's decryption (DER).
    let memory: Arc<Sm2PrivateKey> = Arc::new(memory);
    let der = |ct: &[u8]| shangmi_sm2::pke::c1c3c2_to_der(ct).expect("DER");
    let (to_memory, to_device) = (der(&to_memory), der(&to_device));
    let signed = [0x42u8; 600];
    let mut g = c.benchmark_group("sdf/tlcp-server-key-ops");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("memory", |b| {
        b.iter(|| {
            Sm2SignKey::sign(&*memory, &signed).expect("sign");
            Sm2EncKey::decrypt(&*memory, &to_memory).expect("decrypt")
        })
    });
    g.bench_function("device", |b| {
        b.iter(|| {
            Sm2SignKey::sign(&*sign, &signed).expect("sign");
            Sm2EncKey::decrypt(&*enc, &to_device).expect("decrypt")
        })
    });
    g.finish();
}

/// A server config for `sign`/`enc` under a CA made here, and the clients' roots.
fn server(
    sign: Arc<dyn Sm2SignKey>,
    sign_public: shangmi_sm2::PublicKey,
    enc: Arc<dyn Sm2EncKey>,
    enc_public: shangmi_sm2::PublicKey,
) -> (Arc<ServerConfig>, RootCertStore) {
    let ca_key = memory_key(b"ca");
    let ca = issue::self_signed(
        &ca_key,
        &CertParams::new(
            parse_dn("/CN=Bench CA").expect("dn"),
            Profile::Ca { path_len: None },
            1,
        ),
    )
    .expect("CA");
    let leaf = |public, profile| {
        let mut params = CertParams::new(parse_dn("/CN=localhost").expect("dn"), profile, 1);
        params.sans.push(San::Dns("localhost".into()));
        let cert = issue::issue(&ca, &ca_key, &public, &params).expect("leaf");
        CertificateDer::from(cert.to_der().expect("DER"))
    };
    let config = ServerConfig::builder()
        .suites(&[CipherSuite::EccSm4GcmSm3])
        .with_certs(
            vec![leaf(sign_public, Profile::TlcpSign)],
            sign,
            leaf(enc_public, Profile::TlcpEnc),
            enc,
        )
        .expect("server config");
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from(ca.to_der().expect("DER")))
        .expect("root");
    (Arc::new(config), roots)
}

fn handshakes(c: &mut Criterion, device: &SdfDevice) {
    let (sign, enc) = (memory_key(b"sign"), memory_key(b"enc"));
    let (sign_public, enc_public) = (sign.public_key(), enc.public_key());
    let memory = server(
        Arc::new(Sm2PrivateKey::new(sign).expect("key")),
        sign_public,
        Arc::new(Sm2PrivateKey::new(enc).expect("key")),
        enc_public,
    );
    let (sign, enc) = (
        device_key(device, KeyUsage::Sign),
        device_key(device, KeyUsage::Encrypt),
    );
    let (sign_public, enc_public) = (sign.public_key(), enc.public_key());
    let in_device = server(sign, sign_public, enc, enc_public);
    // Clients that keep no sessions: every handshake is a full one.
    let client = |roots: RootCertStore| {
        Arc::new(
            ClientConfig::builder(roots)
                .suites(&[CipherSuite::EccSm4GcmSm3])
                .session_store(shangmi_tlcp::ClientSessionCache::new(0))
                .build()
                .expect("client config"),
        )
    };
    let (memory_client, device_client) = (client(memory.1), client(in_device.1));
    let mut g = c.benchmark_group("sdf/tlcp-handshake");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for round in ["", " (again)"] {
        g.bench_function(format!("memory{round}"), |b| {
            b.iter(|| common::connect(&memory_client, &memory.0))
        });
        g.bench_function(format!("device{round}"), |b| {
            b.iter(|| common::connect(&device_client, &in_device.0))
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let device = SdfDevice::open(library()).expect("the test device");
    sign_and_decrypt(c, &device);
    handshakes(c, &device);
}

criterion_group!(benches, bench);
criterion_main!(benches);
