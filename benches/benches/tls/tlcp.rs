//! TLCP (`shangmi-tlcp`), client and server in one process over memory, beside the RFC 8998
//! TLS 1.3 handshake of `shangmi-rustls` measured in the same group:
//!
//! - `tlcp/handshake`: full ECC_SM4_GCM_SM3 (server certificates only) and
//!   ECDHE_SM4_GCM_SM3 (mutual, as ECDHE requires) handshakes, and TLS 1.3 SM for reference;
//! - `tlcp/resumed`: a session-ID resumption of ECC_SM4_GCM_SM3;
//! - `tlcp/record-seal/16384` and `tlcp/record-open/16384`: one 16 KiB application-data
//!   record of each record protection (GCM; CBC with HMAC-SM3), beside raw SM4-GCM and raw
//!   SM4-CBC + HMAC-SM3 on the same size (sealing, then opening with the tag or MAC check).
//!
//! `cargo bench -p shangmi-benches --bench tls -- tlcp/`

#[path = "../../../tlcp/tests/common/mod.rs"]
mod common;

use common::{client_config, client_config_with, deliver, server_config};
use criterion::{BatchSize, Criterion};
use shangmi_tlcp::{
    CipherSuite, ClientAuth, ClientConfig, ClientConnection, ServerConfig, ServerConnection,
    ServerName,
};
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

/// Runs a handshake to its end over memory.
fn connect(
    client: &Arc<ClientConfig>,
    server: &Arc<ServerConfig>,
) -> (ClientConnection, ServerConnection) {
    handshake_pair!(client, server, pump)
}

/// Delivers flights both ways until neither side has anything left to say.
fn pump(c: &mut ClientConnection, s: &mut ServerConnection) {
    while c.is_handshaking() || s.is_handshaking() || c.wants_write() || s.wants_write() {
        deliver(c, s).expect("to server");
        deliver(s, c).expect("to client");
    }
}

/// A client that keeps no sessions, so that every handshake is a full one.
fn fresh(suite: CipherSuite, with_certs: bool) -> Arc<ClientConfig> {
    Arc::new(client_config_with(&[suite], with_certs, |b| {
        b.session_store(shangmi_tlcp::ClientSessionCache::new(0))
    }))
}

/// The handshake groups.
pub fn bench_handshakes(c: &mut Criterion) {
    let ecc_server = Arc::new(server_config(
        &[CipherSuite::EccSm4GcmSm3],
        ClientAuth::None,
    ));
    let ecdhe_server = Arc::new(server_config(
        &[CipherSuite::EcdheSm4GcmSm3],
        ClientAuth::Required,
    ));
    let mut g = c.benchmark_group("tlcp/handshake");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let ecc = fresh(CipherSuite::EccSm4GcmSm3, false);
    g.bench_function("ecc-sm4gcm", |b| b.iter(|| connect(&ecc, &ecc_server)));
    let ecdhe = fresh(CipherSuite::EcdheSm4GcmSm3, true);
    g.bench_function("ecdhe-sm4gcm-mutual", |b| {
        b.iter(|| connect(&ecdhe, &ecdhe_server))
    });
    let (tls_client, tls_server) = super::sm_configs();
    let mut tls_fresh = (*tls_client).clone();
    tls_fresh.resumption = rustls::client::Resumption::disabled();
    let tls_fresh = Arc::new(tls_fresh);
    g.bench_function("tls13-shangmi-sm2-sm4gcm", |b| {
        b.iter(|| super::handshake(&tls_fresh, &tls_server))
    });
    g.finish();

    let mut g = c.benchmark_group("tlcp/resumed");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let resuming = Arc::new(client_config(&[CipherSuite::EccSm4GcmSm3], false));
    let _ = connect(&resuming, &ecc_server);
    g.bench_function("ecc-sm4gcm", |b| {
        b.iter(|| {
            let (c, _s) = connect(&resuming, &ecc_server);
            assert!(c.is_resumed());
        })
    });
    g.finish();
}

/// A client and a server configuration offering only `suite` (server certificates only).
fn suite_configs(suite: CipherSuite) -> (Arc<ClientConfig>, Arc<ServerConfig>) {
    let client = Arc::new(client_config(&[suite], false));
    (client, Arc::new(server_config(&[suite], ClientAuth::None)))
}

/// The record groups.
pub fn bench_records(c: &mut Criterion) {
    const RECORD: usize = 16384;
    let data = vec![0x5au8; RECORD];
    let sides = [
        ("ecc-sm4gcm", CipherSuite::EccSm4GcmSm3),
        ("ecc-sm4cbc-hmacsm3", CipherSuite::EccSm4CbcSm3),
    ];
    let mut g = super::record_group(c, format!("tlcp/record-seal/{RECORD}"), RECORD);
    for (name, suite) in sides {
        let (client, server) = suite_configs(suite);
        let (mut cl, _s) = connect(&client, &server);
        bench_seal!(g, name, cl, data);
    }
    super::raw_sm4_gcm(&mut g, RECORD);
    raw_cbc_hmac(&mut g, RECORD);
    g.finish();

    let mut g = super::record_group(c, format!("tlcp/record-open/{RECORD}"), RECORD);
    for (name, suite) in sides {
        let (client, server) = suite_configs(suite);
        let (mut cl, mut sv) = connect(&client, &server);
        bench_open!(g, name, cl, sv, data);
    }
    raw_open_references(&mut g, RECORD);
    g.finish();
}

/// The open side's references on `size` bytes: raw SM4-GCM decryption with its tag check,
/// and raw SM4-CBC decryption plus HMAC-SM3 (the work a CBC record's open must do).
fn raw_open_references(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    size: usize,
) {
    use hmac::Mac;
    use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
    use shangmi_sm4_modes::cipher::{BlockModeDecrypt, KeyIvInit, block_padding::NoPadding};
    use shangmi_sm4_modes::{Sm4CbcDec, Sm4Gcm};
    let gcm = Sm4Gcm::new(&[0x42; 16].into());
    let nonce = [7u8; 12].into();
    let mut ct = vec![0u8; size];
    let tag = gcm
        .encrypt_inout_detached(&nonce, &[0; 13], (&mut ct[..]).into())
        .expect("seal");
    g.bench_function("raw-sm4-gcm-open", |b| {
        b.iter_batched_ref(
            || ct.clone(),
            |buf| {
                gcm.decrypt_inout_detached(&nonce, &[0; 13], (&mut buf[..]).into(), &tag)
                    .expect("tag")
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("raw-sm4-cbc+hmac-sm3-open", |b| {
        b.iter_batched_ref(
            || ct.clone(),
            |buf| {
                let dec = Sm4CbcDec::new(&[0x42; 16].into(), &[7; 16].into());
                let _ = dec.decrypt_padded::<NoPadding>(buf);
                let mut mac =
                    hmac::Hmac::<shangmi_sm3::Sm3>::new_from_slice(&[0x24; 32]).expect("key");
                mac.update(buf);
                mac.finalize()
            },
            BatchSize::SmallInput,
        )
    });
}

/// Raw SM4-CBC encryption plus HMAC-SM3 over the same size: the CBC record's reference.
fn raw_cbc_hmac(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    size: usize,
) {
    use hmac::{KeyInit as _, Mac};
    use shangmi_sm4_modes::Sm4CbcEnc;
    use shangmi_sm4_modes::cipher::{BlockModeEncrypt, KeyIvInit, block_padding::NoPadding};
    let mut buf = vec![0u8; size];
    g.bench_function("raw-sm4-cbc+hmac-sm3", |b| {
        b.iter(|| {
            let mut mac = hmac::Hmac::<shangmi_sm3::Sm3>::new_from_slice(&[0x24; 32]).expect("key");
            mac.update(&buf);
            let tag = mac.finalize();
            let enc = Sm4CbcEnc::new(&[0x42; 16].into(), &[7; 16].into());
            let _ = enc.encrypt_padded::<NoPadding>(&mut buf, size);
            tag
        })
    });
}
