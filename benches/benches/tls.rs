//! TLS 1.3 with `shangmi-rustls` beside rustls' `ring` provider, client and server in one
//! process over memory (no sockets):
//!
//! - `tls/handshake`: a full handshake, SM (SM2 certificates, curveSM2, TLS_SM4_GCM_SM3)
//!   against ring (ECDSA P-256 certificates, ECDHE P-256, TLS_AES_128_GCM_SHA256);
//! - `tls/resumed`: a resumed handshake (PSK with ECDHE, stateful server cache) for both;
//! - `tls/kx`: one side's key exchange through rustls' `SupportedKxGroup`, curveSM2 against
//!   ring's secp256r1: `share` makes a key share (`start`), `agree` makes one and completes
//!   it with the peer's share — what each side of either handshake spends on ECDHE, so the
//!   rest of a handshake's time (hashing, key schedule, records) is the difference;
//! - `tls/bulk-seal/16384` and `tls/bulk-open/16384`: one 16 KiB application-data record
//!   sealed by the client / opened by the server, beside raw SM4-GCM on 16 KiB.
//!
//! The TLCP groups (`tlcp/…`) are in `tls/tlcp.rs`, beside these for the same-run ratios.
//!
//! `cargo bench -p shangmi-benches --bench tls`
// The rustls and TLCP test PKIs (both included below) each declare the shared
// `testsupport/test_pki.rs` as a module of their own: one file, two modules.
#![allow(clippy::duplicate_mod)]

/// `$name` in group `$g`: the client connection `$cl` (rustls' or TLCP's, which share the
/// method names) seals `$data` as one record per iteration.
macro_rules! bench_seal {
    ($g:expr, $name:expr, $cl:expr, $data:expr) => {{
        let mut out = Vec::with_capacity(2 * $data.len());
        $g.bench_function($name, |b| {
            b.iter(|| {
                out.clear();
                $cl.writer().write_all(&$data).expect("write");
                while $cl.wants_write() {
                    $cl.write_tls(&mut out).expect("write_tls");
                }
            })
        });
    }};
}

/// `$name` in group `$g`: the server connection `$sv` opens one record of `$data` that
/// `$cl` sealed, per iteration (the sealing is set-up, outside the timing).
macro_rules! bench_open {
    ($g:expr, $name:expr, $cl:expr, $sv:expr, $data:expr) => {{
        let mut plain = vec![0u8; $data.len()];
        $g.bench_function($name, |b| {
            b.iter_batched_ref(
                || {
                    let mut out = Vec::with_capacity(2 * $data.len());
                    $cl.writer().write_all(&$data).expect("write");
                    while $cl.wants_write() {
                        $cl.write_tls(&mut out).expect("write_tls");
                    }
                    out
                },
                |record| {
                    let mut rd = &record[..];
                    while !rd.is_empty() {
                        $sv.read_tls(&mut rd).expect("read");
                        $sv.process_new_packets().expect("open");
                    }
                    $sv.reader().read_exact(&mut plain).expect("plaintext");
                },
                BatchSize::SmallInput,
            )
        });
    }};
}

/// A client connection to "localhost" on `$client` and a server connection on `$server`
/// (both `&Arc` configurations), handshaken over memory by `$pump(&mut c, &mut s)`. The
/// `ServerName`, `ClientConnection` and `ServerConnection` are those in scope where it is
/// used: rustls' here, TLCP's in `tls/tlcp.rs`.
macro_rules! handshake_pair {
    ($client:expr, $server:expr, $pump:expr) => {{
        let name = ServerName::try_from("localhost").expect("name");
        let mut c = ClientConnection::new($client.clone(), name).expect("client");
        let mut s = ServerConnection::new($server.clone()).expect("server");
        $pump(&mut c, &mut s);
        (c, s)
    }};
}

#[path = "tls/tlcp.rs"]
mod tlcp;

#[path = "../../rustls/tests/common/pki.rs"]
#[allow(dead_code)]
mod pki;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::PKey;
use openssl::x509::{X509, X509NameBuilder, extension::SubjectAlternativeName};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};
use shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey;
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

/// One side's certificate, key and the CA that issued it.
struct Identity {
    ca: CertificateDer<'static>,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

fn sm2_identity() -> Identity {
    let pki = pki::Pki::new();
    let key = pki.server_key.to_pkcs8_der().expect("PKCS#8");
    Identity {
        ca: CertificateDer::from(pki.ca.clone()),
        chain: vec![CertificateDer::from(pki.server.clone())],
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.as_bytes().to_vec())),
    }
}

/// A P-256 CA and server certificate made with OpenSSL, for the ring side.
fn p256_identity() -> Identity {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("P-256");
    let new_key = || PKey::from_ec_key(EcKey::generate(&group).expect("key")).expect("pkey");
    let name = |cn: &str| {
        let mut n = X509NameBuilder::new().expect("name");
        n.append_entry_by_text("CN", cn).expect("CN");
        n.build()
    };
    let cert = |subject: &str, key: &PKey<_>, issuer: &str, issuer_key: &PKey<_>, ca: bool| {
        let mut b = X509::builder().expect("builder");
        b.set_version(2).expect("v3");
        b.set_subject_name(&name(subject)).expect("subject");
        b.set_issuer_name(&name(issuer)).expect("issuer");
        b.set_pubkey(key).expect("key");
        let not_before = openssl::asn1::Asn1Time::days_from_now(0).expect("time");
        let not_after = openssl::asn1::Asn1Time::days_from_now(30).expect("time");
        b.set_not_before(&not_before).expect("nb");
        b.set_not_after(&not_after).expect("na");
        if ca {
            let bc = openssl::x509::extension::BasicConstraints::new()
                .critical()
                .ca()
                .build()
                .expect("bc");
            b.append_extension(bc).expect("bc");
        } else {
            let san = SubjectAlternativeName::new()
                .dns("localhost")
                .build(&b.x509v3_context(None, None))
                .expect("san");
            b.append_extension(san).expect("san");
        }
        b.sign(issuer_key, MessageDigest::sha256()).expect("sign");
        b.build().to_der().expect("DER")
    };
    let ca_key = new_key();
    let server_key = new_key();
    let ca = cert("bench CA", &ca_key, "bench CA", &ca_key, true);
    let server = cert("localhost", &server_key, "bench CA", &ca_key, false);
    Identity {
        ca: CertificateDer::from(ca),
        chain: vec![CertificateDer::from(server)],
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
            server_key.private_key_to_pkcs8().expect("PKCS#8"),
        )),
    }
}

fn configs(provider: CryptoProvider, id: Identity) -> (Arc<ClientConfig>, Arc<ServerConfig>) {
    let provider = Arc::new(provider);
    let mut roots = RootCertStore::empty();
    roots.add(id.ca).expect("CA");
    let client = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    let server = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(id.chain, id.key)
        .expect("server key");
    (Arc::new(client), Arc::new(server))
}

fn sm_configs() -> (Arc<ClientConfig>, Arc<ServerConfig>) {
    let mut provider = shangmi_rustls::provider();
    provider.cipher_suites = vec![shangmi_rustls::suites::TLS13_SM4_GCM_SM3];
    provider.kx_groups = vec![&shangmi_rustls::kx::CURVE_SM2];
    configs(provider, sm2_identity())
}

fn ring_configs() -> (Arc<ClientConfig>, Arc<ServerConfig>) {
    let mut provider = rustls::crypto::ring::default_provider();
    provider.cipher_suites = vec![rustls::crypto::ring::cipher_suite::TLS13_AES_128_GCM_SHA256];
    provider.kx_groups = vec![rustls::crypto::ring::kx_group::SECP256R1];
    configs(provider, p256_identity())
}

/// Moves records both ways until neither side has more to say.
fn pump(client: &mut ClientConnection, server: &mut ServerConnection) {
    let mut buf = Vec::new();
    loop {
        let to_server = flight(client, server, &mut buf);
        let to_client = flight(server, client, &mut buf);
        if !to_server && !to_client {
            return;
        }
    }
}

/// Moves what `from` has to send to `to` (through `buf`); whether anything moved.
fn flight<A, B>(
    from: &mut rustls::ConnectionCommon<A>,
    to: &mut rustls::ConnectionCommon<B>,
    buf: &mut Vec<u8>,
) -> bool {
    buf.clear();
    while from.wants_write() {
        from.write_tls(buf).expect("write");
    }
    let mut rd = &buf[..];
    while !rd.is_empty() {
        to.read_tls(&mut rd).expect("read");
        to.process_new_packets().expect("process");
    }
    !buf.is_empty()
}

fn handshake(
    client: &Arc<ClientConfig>,
    server: &Arc<ServerConfig>,
) -> (ClientConnection, ServerConnection) {
    let (c, s) = handshake_pair!(client, server, pump);
    assert!(!c.is_handshaking());
    (c, s)
}

fn bench_handshakes(c: &mut Criterion) {
    let sides = [
        ("shangmi-sm2-sm4gcm", sm_configs()),
        ("ring-p256-aes128gcm", ring_configs()),
    ];
    let mut g = c.benchmark_group("tls/handshake");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, (client, server)) in &sides {
        // A client without a session cache makes every handshake a full one.
        let mut fresh = (**client).clone();
        fresh.resumption = rustls::client::Resumption::disabled();
        let fresh = Arc::new(fresh);
        g.bench_function(*name, |b| b.iter(|| handshake(&fresh, server)));
    }
    g.finish();

    let mut g = c.benchmark_group("tls/resumed");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, (client, server)) in &sides {
        // Each resumed handshake consumes one ticket; the server sends two per handshake,
        // so the pool never runs dry.
        let (mut c0, mut s0) = handshake(client, server);
        c0.writer().write_all(b"x").expect("write");
        pump(&mut c0, &mut s0);
        g.bench_function(*name, |b| {
            b.iter(|| {
                let (c, _s) = handshake(client, server);
                assert_eq!(c.handshake_kind(), Some(rustls::HandshakeKind::Resumed));
            })
        });
    }
    g.finish();
}

fn bench_kx(c: &mut Criterion) {
    let sides: [(&str, &dyn rustls::crypto::SupportedKxGroup); 2] = [
        ("shangmi-curvesm2", &shangmi_rustls::kx::CURVE_SM2),
        ("ring-secp256r1", rustls::crypto::ring::kx_group::SECP256R1),
    ];
    // The groups the handshake benchmarks configure (`sm_configs`, `ring_configs`).
    let mut g = c.benchmark_group("tls/kx");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for (name, group) in sides {
        let peer = group.start().expect("key share").pub_key().to_vec();
        g.bench_function(format!("{name}/share"), |b| {
            b.iter(|| group.start().expect("key share"))
        });
        g.bench_function(format!("{name}/agree"), |b| {
            b.iter(|| {
                let share = group.start().expect("key share");
                share.complete(&peer).expect("shared secret")
            })
        });
    }
    g.finish();
}

fn bench_bulk(c: &mut Criterion) {
    const RECORD: usize = 16384;
    let data = vec![0x5au8; RECORD];
    let sides = [
        ("shangmi-sm4gcm", sm_configs()),
        ("ring-aes128gcm", ring_configs()),
    ];
    let mut g = record_group(c, format!("tls/bulk-seal/{RECORD}"), RECORD);
    for (name, (client, server)) in &sides {
        let (mut cl, _s) = handshake(client, server);
        bench_seal!(g, *name, cl, data);
    }
    raw_sm4_gcm(&mut g, RECORD);
    g.finish();

    let mut g = record_group(c, format!("tls/bulk-open/{RECORD}"), RECORD);
    for (name, (client, server)) in &sides {
        let (mut cl, mut sv) = handshake(client, server);
        bench_open!(g, *name, cl, sv, data);
    }
    raw_sm4_gcm(&mut g, RECORD);
    g.finish();
}

/// A group of one-record benchmarks on `size` bytes (throughput in bytes, 0.3 s warm-up,
/// 1 s of measurement).
fn record_group(
    c: &mut Criterion,
    name: String,
    size: usize,
) -> criterion::BenchmarkGroup<'_, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(size as u64))
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    g
}

/// The raw AEAD on the same size, the bar's reference.
fn raw_sm4_gcm(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    size: usize,
) {
    use shangmi_sm4_modes::Sm4Gcm;
    use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
    let gcm = Sm4Gcm::new(&[0x42; 16].into());
    let mut buf = vec![0u8; size];
    g.bench_function("raw-sm4-gcm", |b| {
        b.iter(|| gcm.encrypt_inout_detached(&[7; 12].into(), &[0; 5], (&mut buf[..]).into()))
    });
}

criterion_group!(
    benches,
    bench_handshakes,
    bench_kx,
    bench_bulk,
    tlcp::bench_handshakes,
    tlcp::bench_records
);
criterion_main!(benches);
