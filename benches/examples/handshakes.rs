//! A handshake load generator for any TLCP or RFC 8998 TLS 1.3 server on this machine (ours,
//! Tongsuo's `s_server -enable_ntls -ntls`, …): one client after another, each a full or a
//! resumed handshake and a close, for a number of seconds. With `--server-pid` it reads the
//! server's CPU time from `/proc/PID/stat` before and after, so the figure it prints is
//! handshakes per second **of server CPU** (per core), which does not depend on how the two
//! cores are shared between the client and the server.
//!
//! ```text
//! cargo run --release -p shangmi-benches --example handshakes -- \
//!     --connect 127.0.0.1:4433 --ca ca.crt [--name localhost] [--suite ECC_SM4_GCM_SM3] \
//!     [--client-sign c_sign.crt c_sign.key --client-enc c_enc.crt c_enc.key] \
//!     [--resume] [--tls13] [--seconds 5] [--server-pid PID] [--label TEXT]
//! ```
//!
//! Not a test and not part of CI: the figures are measurements.

use shangmi_tlcp::{
    CertificateDer, CipherSuite, ClientConfig, ClientConnection, ClientSessionCache, NameCheck,
    RootCertStore, ServerName, Sm2PrivateKey, StreamOwned,
};
use std::error::Error;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

#[derive(Default)]
struct Args {
    connect: String,
    ca: String,
    name: String,
    suite: Option<String>,
    client_sign: Option<(String, String)>,
    client_enc: Option<(String, String)>,
    resume: bool,
    tls13: bool,
    seconds: f64,
    server_pid: Option<u32>,
    label: String,
}

fn args() -> Result<Args> {
    let mut a = Args {
        name: "localhost".into(),
        seconds: 5.0,
        ..Args::default()
    };
    let mut it = std::env::args().skip(1);
    let next = |it: &mut dyn Iterator<Item = String>, flag: &str| {
        it.next().ok_or_else(|| format!("{flag} needs a value"))
    };
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--connect" => a.connect = next(&mut it, &flag)?,
            "--ca" => a.ca = next(&mut it, &flag)?,
            "--name" => a.name = next(&mut it, &flag)?,
            "--suite" => a.suite = Some(next(&mut it, &flag)?),
            "--client-sign" => a.client_sign = Some((next(&mut it, &flag)?, next(&mut it, &flag)?)),
            "--client-enc" => a.client_enc = Some((next(&mut it, &flag)?, next(&mut it, &flag)?)),
            "--resume" => a.resume = true,
            "--tls13" => a.tls13 = true,
            "--seconds" => a.seconds = next(&mut it, &flag)?.parse()?,
            "--server-pid" => a.server_pid = Some(next(&mut it, &flag)?.parse()?),
            "--label" => a.label = next(&mut it, &flag)?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if a.connect.is_empty() || a.ca.is_empty() {
        return Err("--connect and --ca are required".into());
    }
    Ok(a)
}

/// utime + stime of a process, in seconds (all its threads).
fn cpu_seconds(pid: u32) -> Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name is in parentheses and may hold spaces: count fields after it.
    let rest = stat.rsplit_once(')').ok_or("unreadable /proc stat")?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>()? + fields[12].parse::<f64>()?;
    // Linux reports these in USER_HZ, which is 100 on every architecture it runs on here
    // (fixed for /proc whatever the kernel's CONFIG_HZ).
    Ok(ticks / 100.0)
}

fn certs(path: &str) -> Result<Vec<CertificateDer<'static>>> {
    Ok(shangmi_tlcp::certs_from_pem(&std::fs::read(path)?)?)
}

fn key(path: &str) -> Result<Arc<Sm2PrivateKey>> {
    Ok(Arc::new(Sm2PrivateKey::from_pem(
        &std::fs::read_to_string(path)?,
    )?))
}

/// One TLCP client configuration; every handshake shares it (and its session cache).
fn tlcp_config(a: &Args) -> Result<Arc<ClientConfig>> {
    let mut roots = RootCertStore::empty();
    for c in certs(&a.ca)? {
        roots.add(c)?;
    }
    let mut b = ClientConfig::builder(roots).name_check(NameCheck::CommonNameFallback);
    if let Some(s) = &a.suite {
        b = b.suites(&[s.parse::<CipherSuite>()?]);
    }
    if let (Some((sc, sk)), Some((ec, ek))) = (&a.client_sign, &a.client_enc) {
        b = b.client_certs(certs(sc)?, key(sk)?, certs(ec)?.remove(0), key(ek)?);
    }
    // Resumption by session ID (and ticket, when the server gives one) or none at all.
    b = b.session_store(ClientSessionCache::new(if a.resume { 16 } else { 0 }));
    Ok(Arc::new(b.build()?))
}

/// One RFC 8998 TLS 1.3 client configuration (TLS_SM4_GCM_SM3, curveSM2).
fn tls13_config(a: &Args) -> Result<Arc<rustls::ClientConfig>> {
    let mut provider = shangmi_rustls::provider();
    provider.cipher_suites = vec![shangmi_rustls::suites::TLS13_SM4_GCM_SM3];
    provider.kx_groups = vec![&shangmi_rustls::kx::CURVE_SM2];
    let mut roots = rustls::RootCertStore::empty();
    for c in certs(&a.ca)? {
        roots.add(c)?;
    }
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    if !a.resume {
        config.resumption = rustls::client::Resumption::disabled();
    }
    Ok(Arc::new(config))
}

/// One connection: handshake, then a clean close. Returns whether it was resumed.
fn once(
    a: &Args,
    tlcp: Option<&Arc<ClientConfig>>,
    tls: Option<&Arc<rustls::ClientConfig>>,
) -> Result<bool> {
    let sock = TcpStream::connect(&a.connect)?;
    sock.set_nodelay(true)?;
    let name = ServerName::try_from(a.name.clone())?;
    if let Some(config) = tlcp {
        let mut s = StreamOwned::new(ClientConnection::new(config.clone(), name)?, sock);
        s.handshake()?;
        let resumed = s.conn.is_resumed();
        s.close()?;
        Ok(resumed)
    } else if let Some(config) = tls {
        let mut conn = rustls::ClientConnection::new(config.clone(), name)?;
        let mut sock = sock;
        while conn.is_handshaking() {
            conn.complete_io(&mut sock)?;
        }
        let resumed = matches!(conn.handshake_kind(), Some(rustls::HandshakeKind::Resumed));
        if a.resume {
            // TLS 1.3 tickets follow the handshake: read until one arrives (or 200 ms).
            sock.set_read_timeout(Some(Duration::from_millis(200)))?;
            let _ = conn.complete_io(&mut sock);
        }
        conn.send_close_notify();
        let _ = conn.complete_io(&mut sock);
        Ok(resumed)
    } else {
        Err("no configuration".into())
    }
}

fn main() -> Result<()> {
    let a = args()?;
    let (tlcp, tls) = if a.tls13 {
        (None, Some(tls13_config(&a)?))
    } else {
        (Some(tlcp_config(&a)?), None)
    };
    // One handshake first: it fills the session cache when resuming, and a wrong
    // configuration fails here with the peer's reason.
    once(&a, tlcp.as_ref(), tls.as_ref())?;
    let cpu0 = a.server_pid.map(cpu_seconds).transpose()?;
    let start = Instant::now();
    let (mut count, mut resumed) = (0u64, 0u64);
    while start.elapsed().as_secs_f64() < a.seconds {
        resumed += u64::from(once(&a, tlcp.as_ref(), tls.as_ref())?);
        count += 1;
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (a.server_pid, cpu0) {
        (Some(pid), Some(c0)) => Some(cpu_seconds(pid)? - c0),
        _ => None,
    };
    let per_cpu = cpu.map_or("—".into(), |c| format!("{:.0}", count as f64 / c));
    println!(
        "{}\t{count} handshakes ({resumed} resumed)\t{wall:.2} s wall\t{:.0}/s wall\tserver CPU {}\t{per_cpu}/s per server core",
        a.label,
        count as f64 / wall,
        cpu.map_or("—".into(), |c| format!("{c:.2} s")),
    );
    Ok(())
}
