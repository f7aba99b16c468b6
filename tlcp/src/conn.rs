//! The record layer and the parts both connection kinds share.

use crate::error::{AlertDescription, Error, bad, decode};
use crate::events::{Event, EventHandler};
use crate::keys::SecureRandom;
use crate::msgs::{Alert, AlertLevel, ContentType as CT, HandshakeMessage, HandshakeType};
use crate::record::{MAX_CIPHERTEXT, MAX_FRAGMENT, RecordProtection, VERSION};
use shangmi_sm3::Sm3;
use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

/// Largest raw transcript kept for a GmSSL-form CertificateVerify (longer handshakes only
/// get the standard form).
pub(crate) const MAX_RAW_TRANSCRIPT: usize = 256 * 1024;
/// Largest handshake message accepted (a certificate list of a long chain fits).
const MAX_HANDSHAKE: usize = 65536;
/// Largest amount of received TLS bytes buffered before `process_new_packets` must run.
const MAX_INCOMING: usize = 2 * (5 + MAX_CIPHERTEXT);
/// Decrypted bytes held for the application before `read_tls` stops taking more (so a
/// peer cannot make us buffer without bound while the application does not read).
const MAX_PLAINTEXT_BUFFER: usize = 1 << 18;

/// The sequence number for the next record of a direction, counting it: refused once it
/// is 2^64 − 1, so that no number is used twice under one key (TLS forbids the wrap).
fn next_seq(seq: &mut u64) -> Result<u64, Error> {
    let this = *seq;
    *seq = this.checked_add(1).ok_or(Error::SequenceExhausted)?;
    Ok(this)
}

/// Explicit CBC IVs drawn from the OS generator per call: 256 bytes, the largest draw
/// `shangmi_rustls::rand::OsRandom` serves from its per-thread pool (which the kernel
/// refills 1 KiB a system call), so one system call per 64 records; a larger batch went
/// to `getrandom` itself each time (one call per 32 records at 32).
const IV_BATCH: usize = 16;

/// A connection's explicit CBC IVs, drawn from the configuration's default (OS) generator
/// [`IV_BATCH`] at a time. Each IV is still fresh output of that generator, used once and
/// never seen by anyone before its record goes out: unpredictable, as RFC 5246 §6.2.3.2
/// asks ("SHOULD be chosen at random, and MUST be unpredictable"). A taken IV's slot is
/// cleared at once, the rest when the connection drops.
struct IvPool {
    buf: [u8; 16 * IV_BATCH],
    /// The next unused IV; [`IV_BATCH`] when the pool is spent.
    next: usize,
}

impl IvPool {
    fn new() -> Box<Self> {
        Box::new(IvPool {
            buf: [0; 16 * IV_BATCH],
            next: IV_BATCH,
        })
    }

    /// The next IV, refilling the pool from `rng` when it is spent.
    fn take(&mut self, rng: &dyn SecureRandom) -> Result<[u8; 16], Error> {
        if self.next == IV_BATCH {
            rng.fill(&mut self.buf)?;
            self.next = 0;
        }
        let slot = &mut self.buf[16 * self.next..16 * (self.next + 1)];
        let mut iv = [0u8; 16];
        iv.copy_from_slice(slot);
        slot.fill(0);
        self.next += 1;
        Ok(iv)
    }
}

impl Drop for IvPool {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.buf.zeroize();
    }
}

/// What `process_new_packets` leaves for the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoState {
    /// Decrypted bytes waiting in [`crate::ClientConnection::reader`].
    pub plaintext_bytes_to_read: usize,
    /// TLS bytes waiting for `write_tls`.
    pub tls_bytes_to_write: usize,
    /// Whether the peer sent close_notify.
    pub peer_has_closed: bool,
}

/// The handshake state machine of one role.
pub(crate) trait Handshake {
    /// A handshake message (`before` is the transcript without it; the core has already
    /// added it to `core.transcript`).
    fn handle(
        &mut self,
        core: &mut Core,
        typ: HandshakeType,
        body: &[u8],
        before: &Sm3,
    ) -> Result<(), Error>;
    /// A ChangeCipherSpec arrived.
    fn on_ccs(&mut self) -> Result<(), Error>;
}

/// State shared by clients and servers: buffers, record protection, alerts.
pub(crate) struct Core {
    pub(crate) is_client: bool,
    pub(crate) rng: Arc<dyn SecureRandom>,
    /// Explicit CBC IVs drawn ahead from [`rng`](Self::rng) when it is the configurations'
    /// default OS generator (allocated at the first CBC record); a generator of the
    /// caller's is asked for each record's IV.
    ivs: Option<Box<IvPool>>,
    incoming: Vec<u8>,
    /// The bytes of `incoming` read and not yet handled; the rest of it is room, zeroed
    /// once when the buffer grew (not again on every read).
    incoming_len: usize,
    /// Records waiting for `write_tls`: `outgoing[out_start..]`. Each record is built in
    /// place at its tail (header, plaintext copied once, sealed where it lies).
    outgoing: Vec<u8>,
    out_start: usize,
    plain_in: VecDeque<u8>,
    plain_out: Vec<u8>,
    read_prot: Option<RecordProtection>,
    write_prot: Option<RecordProtection>,
    pub(crate) pending_read: Option<RecordProtection>,
    pub(crate) pending_write: Option<RecordProtection>,
    read_seq: u64,
    write_seq: u64,
    hs_buf: Vec<u8>,
    pub(crate) transcript: Sm3,
    /// The handshake messages themselves, kept while a CertificateVerify in GmSSL 3's form
    /// (signed over the messages, not their SM3 hash) may have to be made or checked;
    /// `None` otherwise, and dropped past [`MAX_RAW_TRANSCRIPT`].
    pub(crate) raw_transcript: Option<Vec<u8>>,
    pub(crate) handshaking: bool,
    /// The configuration's event handler, if any.
    pub(crate) events: Option<Arc<dyn EventHandler>>,
    peer_closed: bool,
    eof: bool,
    sent_close: bool,
    error: Option<Error>,
}

impl Core {
    pub(crate) fn new(
        is_client: bool,
        rng: Arc<dyn SecureRandom>,
        events: Option<Arc<dyn EventHandler>>,
    ) -> Self {
        use digest::Digest;
        Core {
            is_client,
            rng,
            ivs: None,
            incoming: Vec::new(),
            incoming_len: 0,
            outgoing: Vec::new(),
            out_start: 0,
            plain_in: VecDeque::new(),
            plain_out: Vec::new(),
            read_prot: None,
            write_prot: None,
            pending_read: None,
            pending_write: None,
            read_seq: 0,
            write_seq: 0,
            hs_buf: Vec::new(),
            transcript: Sm3::new(),
            raw_transcript: None,
            handshaking: true,
            events,
            peer_closed: false,
            eof: false,
            sent_close: false,
            error: None,
        }
    }

    /// Adds a handshake message to the transcript (and to the raw one, if kept).
    fn add_to_transcript(&mut self, msg: &[u8]) {
        use digest::Digest;
        Digest::update(&mut self.transcript, msg);
        if let Some(raw) = &mut self.raw_transcript {
            if raw.len() + msg.len() > MAX_RAW_TRANSCRIPT {
                self.raw_transcript = None;
            } else {
                raw.extend_from_slice(msg);
            }
        }
    }

    pub(crate) fn transcript_hash(&self) -> [u8; 32] {
        use digest::Digest;
        self.transcript.clone().finalize().into()
    }

    /// The explicit IV of the next CBC record: from the pool when the generator is the
    /// default OS one (checked per record: a server's per-ClientHello configuration may
    /// have swapped it before the first), else drawn from the generator for this record
    /// alone (a device's generator sees every IV, a seeded one gives the same records).
    fn next_iv(&mut self) -> Result<[u8; 16], Error> {
        if crate::keys::is_default_rng(&self.rng) {
            return self.ivs.get_or_insert_with(IvPool::new).take(&*self.rng);
        }
        let mut iv = [0u8; 16];
        self.rng.fill(&mut iv)?;
        Ok(iv)
    }

    fn send_record(&mut self, typ: CT, payload: &[u8]) -> Result<(), Error> {
        self.send_parts(typ, &[payload])
    }

    /// Sends the bytes of `parts`, joined, as records of type `typ`: as few as fit (a
    /// record takes up to 2^14 bytes across part boundaries, so a vectored write of an
    /// HTTP head and its body is one record, not two), one empty record when there are
    /// no bytes. Each record is built at the tail of `outgoing` and sealed there.
    fn send_parts<P: core::ops::Deref<Target = [u8]>>(
        &mut self,
        typ: CT,
        parts: &[P],
    ) -> Result<(), Error> {
        self.compact_outgoing();
        let mut left: usize = parts.iter().map(|p| p.len()).sum();
        let (mut part, mut offset) = (0, 0);
        loop {
            let len = left.min(MAX_FRAGMENT);
            let record = self.outgoing.len();
            let sealing = match &self.write_prot {
                Some(p) => {
                    let (needs_iv, at, n) = (p.needs_iv(), p.plaintext_offset(), p.sealed_len(len));
                    let seq = next_seq(&mut self.write_seq)?;
                    let iv = if needs_iv { self.next_iv()? } else { [0u8; 16] };
                    Some((seq, iv, at, n))
                }
                None => None,
            };
            let (at, sealed) = sealing.map_or((0, len), |(_, _, at, n)| (at, n));
            self.outgoing.push(typ.to_u8());
            self.outgoing.extend_from_slice(&VERSION.to_be_bytes());
            self.outgoing
                .extend_from_slice(&(sealed as u16).to_be_bytes());
            self.outgoing.resize(record + 5 + at, 0);
            // The plaintext, copied once from the caller's parts.
            let mut copied = 0;
            while copied < len {
                let p = &parts[part][offset..];
                let take = p.len().min(len - copied);
                self.outgoing.extend_from_slice(&p[..take]);
                copied += take;
                offset += take;
                if offset == parts[part].len() {
                    part += 1;
                    offset = 0;
                }
            }
            if let (Some((seq, iv, _, _)), Some(p)) = (sealing, &self.write_prot) {
                self.outgoing.resize(record + 5 + sealed, 0);
                if let Err(e) =
                    p.seal_in_place(seq, typ.to_u8(), &mut self.outgoing[record + 5..], len, &iv)
                {
                    self.outgoing.truncate(record);
                    return Err(e);
                }
            }
            left -= len;
            if left == 0 {
                return Ok(());
            }
        }
    }

    /// Drops the bytes already written from the front of `outgoing` (all of them when
    /// everything went out, else once they are half of it).
    fn compact_outgoing(&mut self) {
        if self.out_start == self.outgoing.len() {
            self.outgoing.clear();
            self.out_start = 0;
        } else if self.out_start > self.outgoing.len() / 2 {
            self.outgoing.drain(..self.out_start);
            self.out_start = 0;
        }
    }

    /// Sends a handshake message and adds it to the transcript.
    pub(crate) fn send<M: HandshakeMessage>(&mut self, m: &M) -> Result<(), Error> {
        let mut msg = Vec::with_capacity(128);
        m.encode_message(&mut msg);
        self.add_to_transcript(&msg);
        self.send_record(CT::Handshake, &msg)
    }

    /// Sends ChangeCipherSpec and switches the write side to the pending keys.
    pub(crate) fn send_ccs(&mut self) -> Result<(), Error> {
        self.send_record(CT::ChangeCipherSpec, &[1])?;
        self.write_prot = self.pending_write.take();
        self.write_seq = 0;
        if self.write_prot.is_none() {
            return Err(Error::Crypto("no pending keys"));
        }
        Ok(())
    }

    fn send_alert(&mut self, level: AlertLevel, description: AlertDescription) {
        let alert = Alert { level, description };
        let _ = self.send_record(CT::Alert, &alert.to_bytes());
        self.emit(&Event::AlertSent(description));
    }

    /// Hands `event` to the configuration's handler, if it has one.
    pub(crate) fn emit(&self, event: &Event<'_>) {
        if let Some(h) = &self.events {
            h.event(event);
        }
    }

    /// Ends the handshake: application data may flow.
    pub(crate) fn finish_handshake(&mut self) -> Result<(), Error> {
        self.handshaking = false;
        let pending = core::mem::take(&mut self.plain_out);
        if !pending.is_empty() {
            self.send_record(CT::ApplicationData, &pending)?;
        }
        Ok(())
    }

    pub(crate) fn process(&mut self, hs: &mut dyn Handshake) -> Result<IoState, Error> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        match self.process_records(hs) {
            Ok(()) => Ok(self.io_state()),
            Err(e) => {
                self.emit(&Event::Failed(&e));
                if let Some(a) = e.alert() {
                    self.send_alert(AlertLevel::Fatal, a);
                }
                self.error = Some(e.clone());
                Err(e)
            }
        }
    }

    pub(crate) fn io_state(&self) -> IoState {
        IoState {
            plaintext_bytes_to_read: self.plain_in.len(),
            tls_bytes_to_write: self.outgoing.len() - self.out_start,
            peer_has_closed: self.peer_closed,
        }
    }

    /// Opens and handles every whole record in `incoming`: each is decrypted where it lies
    /// and its plaintext handed on from there; the bytes handled leave the buffer at once.
    fn process_records(&mut self, hs: &mut dyn Handshake) -> Result<(), Error> {
        let mut incoming = core::mem::take(&mut self.incoming);
        let mut done = 0;
        let r = self.process_buffered(hs, &mut incoming[..self.incoming_len], &mut done);
        incoming.copy_within(done..self.incoming_len, 0);
        self.incoming_len -= done;
        self.incoming = incoming;
        r
    }

    /// The loop of [`process_records`](Self::process_records) over `buf[*done..]`.
    fn process_buffered(
        &mut self,
        hs: &mut dyn Handshake,
        buf: &mut [u8],
        done: &mut usize,
    ) -> Result<(), Error> {
        while !self.peer_closed && buf.len() - *done >= 5 {
            let rec = &mut buf[*done..];
            let version = u16::from_be_bytes([rec[1], rec[2]]);
            let len = u16::from_be_bytes([rec[3], rec[4]]) as usize;
            let typ = CT::from_u8(rec[0])
                .ok_or_else(|| bad(AlertDescription::UnexpectedMessage, "unknown content type"))?;
            if version != VERSION {
                return Err(bad(
                    AlertDescription::ProtocolVersion,
                    "record version is not TLCP 1.1",
                ));
            }
            let limit = if self.read_prot.is_some() {
                MAX_CIPHERTEXT
            } else {
                MAX_FRAGMENT
            };
            if len > limit {
                return Err(bad(AlertDescription::RecordOverflow, "record too long"));
            }
            if rec.len() < 5 + len {
                break;
            }
            let frag = &mut rec[5..5 + len];
            *done += 5 + len;
            let plain = match &self.read_prot {
                Some(p) => {
                    let seq = next_seq(&mut self.read_seq)?;
                    let range = p.open_in_place(seq, typ.to_u8(), frag)?;
                    &frag[range]
                }
                None => &frag[..],
            };
            if plain.len() > MAX_FRAGMENT {
                return Err(bad(AlertDescription::RecordOverflow, "plaintext too long"));
            }
            self.handle_record(hs, typ, plain)?;
        }
        Ok(())
    }

    fn handle_record(
        &mut self,
        hs: &mut dyn Handshake,
        typ: CT,
        plain: &[u8],
    ) -> Result<(), Error> {
        match typ {
            CT::Alert => {
                let &[level, desc] = plain else {
                    return Err(decode("alert length"));
                };
                let desc = AlertDescription::from_u8(desc);
                self.emit(&Event::AlertReceived(desc));
                if desc == AlertDescription::CloseNotify {
                    self.peer_closed = true;
                    return Ok(());
                }
                if AlertLevel::from_u8(level) == AlertLevel::Warning
                    && desc != AlertDescription::NoRenegotiation
                {
                    // Warnings are ignored (we never renegotiate, so no_renegotiation can
                    // only answer something we did not do: treated as fatal).
                    return Ok(());
                }
                Err(Error::AlertReceived(desc))
            }
            CT::ChangeCipherSpec => {
                if plain != [1] {
                    return Err(decode("ChangeCipherSpec body"));
                }
                if !self.hs_buf.is_empty() || !self.handshaking {
                    return Err(bad(
                        AlertDescription::UnexpectedMessage,
                        "unexpected ChangeCipherSpec",
                    ));
                }
                hs.on_ccs()?;
                self.read_prot = self.pending_read.take();
                self.read_seq = 0;
                if self.read_prot.is_none() {
                    return Err(bad(
                        AlertDescription::UnexpectedMessage,
                        "ChangeCipherSpec before keys",
                    ));
                }
                Ok(())
            }
            CT::Handshake => {
                if plain.is_empty() {
                    return Err(decode("empty handshake record"));
                }
                self.hs_buf.extend_from_slice(plain);
                while self.hs_buf.len() >= 4 {
                    let mlen = ((self.hs_buf[1] as usize) << 16)
                        | ((self.hs_buf[2] as usize) << 8)
                        | self.hs_buf[3] as usize;
                    if mlen > MAX_HANDSHAKE {
                        return Err(bad(
                            AlertDescription::IllegalParameter,
                            "handshake message too large",
                        ));
                    }
                    if self.hs_buf.len() < 4 + mlen {
                        break;
                    }
                    let msg: Vec<u8> = self.hs_buf.drain(..4 + mlen).collect();
                    let mtyp = HandshakeType::from_u8(msg[0]);
                    if !self.handshaking {
                        let reneg = (self.is_client && mtyp == Some(HandshakeType::HelloRequest))
                            || (!self.is_client && mtyp == Some(HandshakeType::ClientHello));
                        return Err(if reneg {
                            bad(AlertDescription::NoRenegotiation, "renegotiation refused")
                        } else {
                            bad(
                                AlertDescription::UnexpectedMessage,
                                "handshake message after the handshake",
                            )
                        });
                    }
                    let Some(mtyp) = mtyp else {
                        return Err(bad(
                            AlertDescription::UnexpectedMessage,
                            "unexpected handshake message",
                        ));
                    };
                    if self.is_client && mtyp == HandshakeType::HelloRequest {
                        if mlen != 0 {
                            return Err(decode("HelloRequest body"));
                        }
                        continue;
                    }
                    let before = self.transcript.clone();
                    self.add_to_transcript(&msg);
                    hs.handle(self, mtyp, &msg[4..], &before)?;
                }
                Ok(())
            }
            CT::ApplicationData => {
                if self.handshaking {
                    return Err(bad(
                        AlertDescription::UnexpectedMessage,
                        "application data during the handshake",
                    ));
                }
                self.plain_in.extend(plain);
                Ok(())
            }
        }
    }

    pub(crate) fn read_tls(&mut self, rd: &mut dyn io::Read) -> io::Result<usize> {
        if self.plain_in.len() >= MAX_PLAINTEXT_BUFFER {
            return Err(io::Error::other(
                "plaintext buffer full: read the application data",
            ));
        }
        let room = MAX_INCOMING.saturating_sub(self.incoming_len);
        if room == 0 {
            return Err(io::Error::other(
                "TLS buffer full: call process_new_packets",
            ));
        }
        // Read straight into the buffer's tail (no scratch buffer, no second copy).
        let (old, end) = (
            self.incoming_len,
            self.incoming_len + room.min(5 + MAX_CIPHERTEXT),
        );
        if self.incoming.len() < end {
            self.incoming.resize(end, 0);
        }
        let n = rd.read(&mut self.incoming[old..end])?;
        self.incoming_len = old + n;
        if n == 0 {
            self.eof = true;
        }
        Ok(n)
    }

    pub(crate) fn write_tls(&mut self, wr: &mut dyn io::Write) -> io::Result<usize> {
        let pending = &self.outgoing[self.out_start..];
        if pending.is_empty() {
            return Ok(0);
        }
        let n = wr.write(pending)?;
        self.out_start += n.min(pending.len());
        if self.out_start == self.outgoing.len() {
            self.outgoing.clear();
            self.out_start = 0;
        }
        Ok(n)
    }

    pub(crate) fn wants_write(&self) -> bool {
        self.out_start < self.outgoing.len()
    }

    /// Decrypted bytes waiting for [`read_plain`](Self::read_plain).
    pub(crate) fn plaintext_len(&self) -> usize {
        self.plain_in.len()
    }

    pub(crate) fn wants_read(&self) -> bool {
        self.error.is_none() && !self.peer_closed && !self.eof && self.plain_in.is_empty()
    }

    pub(crate) fn send_close_notify(&mut self) {
        if !self.sent_close {
            self.sent_close = true;
            self.send_alert(AlertLevel::Warning, AlertDescription::CloseNotify);
        }
    }

    pub(crate) fn read_plain(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.plain_in.is_empty() {
            // The buffered bytes are at most two slices: copy them whole.
            let n = buf.len().min(self.plain_in.len());
            let (front, back) = self.plain_in.as_slices();
            let first = front.len().min(n);
            buf[..first].copy_from_slice(&front[..first]);
            buf[first..n].copy_from_slice(&back[..n - first]);
            self.plain_in.drain(..n);
            return Ok(n);
        }
        if self.peer_closed {
            return Ok(0);
        }
        if let Some(e) = &self.error {
            return Err(e.clone().into());
        }
        if self.eof {
            return Err(Error::UnexpectedEof.into());
        }
        Err(io::ErrorKind::WouldBlock.into())
    }

    pub(crate) fn write_plain(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_plain_vectored(&[io::IoSlice::new(buf)])
    }

    /// Application data from several buffers, sealed together (a record spans them).
    pub(crate) fn write_plain_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        if let Some(e) = &self.error {
            return Err(e.clone().into());
        }
        if self.sent_close {
            return Err(Error::Closed.into());
        }
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        if total == 0 {
            return Ok(0);
        }
        if self.handshaking {
            for b in bufs {
                self.plain_out.extend_from_slice(b);
            }
        } else {
            if let Err(e) = self.send_parts(CT::ApplicationData, bufs) {
                // Sequence numbers exhausted (or no randomness for an IV): the connection
                // ends here, every later call gets the same error.
                self.sent_close = true;
                self.error = Some(e.clone());
                return Err(e.into());
            }
        }
        Ok(total)
    }

    /// Test hook: sends a raw handshake message (used to simulate renegotiation).
    pub(crate) fn inject_handshake(&mut self, typ: u8, body: &[u8]) -> Result<(), Error> {
        let mut msg = Vec::with_capacity(4 + body.len());
        crate::msgs::put_handshake_header(&mut msg, typ, body.len());
        msg.extend_from_slice(body);
        self.send_record(CT::Handshake, &msg)
    }
}

/// Reads decrypted application data.
pub struct Reader<'a> {
    pub(crate) core: &'a mut Core,
}

impl io::Read for Reader<'_> {
    /// Decrypted data; `Ok(0)` after close_notify; `UnexpectedEof` when the transport
    /// ended without close_notify (truncation); `WouldBlock` when nothing is buffered.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.core.read_plain(buf)
    }
}

/// Writes application data (buffered until the handshake completes).
pub struct Writer<'a> {
    pub(crate) core: &'a mut Core,
}

impl io::Write for Writer<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.core.write_plain(buf)
    }

    /// Every buffer at once, sealed together: records span the buffers.
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.core.write_plain_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// key_block = PRF(ms, "key expansion", server_random ‖ client_random), split as client
/// MAC key, server MAC key, client key, server key, client IV, server IV; returns
/// (read, write) protection for the given side.
pub(crate) fn derive_keys(
    suite: crate::CipherSuite,
    ms: &[u8; 48],
    client_random: &[u8; 32],
    server_random: &[u8; 32],
    is_client: bool,
) -> Result<(RecordProtection, RecordProtection), Error> {
    use zeroize::Zeroize;
    let (m, k, i) = suite.key_block_shape();
    let mut seed = [0u8; 64];
    seed[..32].copy_from_slice(server_random);
    seed[32..].copy_from_slice(client_random);
    let mut kb = vec![0u8; 2 * (m + k + i)];
    crate::prf::prf(ms, b"key expansion", &seed, &mut kb);
    let (cm, rest) = kb.split_at(m);
    let (sm, rest) = rest.split_at(m);
    let (ck, rest) = rest.split_at(k);
    let (sk, rest) = rest.split_at(k);
    let (ci, si) = rest.split_at(i);
    let client = RecordProtection::new(suite, cm, ck, ci)?;
    let server = RecordProtection::new(suite, sm, sk, si)?;
    kb.zeroize();
    Ok(if is_client {
        (server, client)
    } else {
        (client, server)
    })
}

/// The I/O methods `ClientConnection` and `ServerConnection` share (both hold a `core` and
/// an `hs`), written once.
macro_rules! connection_methods {
    () => {
        /// Reads TLS bytes from `rd` (returns 0 at the end of the transport).
        pub fn read_tls(&mut self, rd: &mut dyn io::Read) -> io::Result<usize> {
            self.core.read_tls(rd)
        }

        /// Writes queued TLS bytes to `wr`.
        pub fn write_tls(&mut self, wr: &mut dyn io::Write) -> io::Result<usize> {
            self.core.write_tls(wr)
        }

        /// Processes the TLS bytes read so far. On an error the alert (if any) is queued for
        /// `write_tls` and every later call returns the same error.
        pub fn process_new_packets(&mut self) -> Result<IoState, Error> {
            self.core.process(&mut self.hs)
        }

        /// Decrypted application data.
        pub fn reader(&mut self) -> Reader<'_> {
            Reader {
                core: &mut self.core,
            }
        }

        /// Application data to send (buffered until the handshake completes).
        pub fn writer(&mut self) -> Writer<'_> {
            Writer {
                core: &mut self.core,
            }
        }

        /// Queues close_notify.
        pub fn send_close_notify(&mut self) {
            self.core.send_close_notify()
        }

        /// Whether the handshake is still running.
        pub fn is_handshaking(&self) -> bool {
            self.core.handshaking
        }

        /// Whether TLS bytes wait for `write_tls`.
        pub fn wants_write(&self) -> bool {
            self.core.wants_write()
        }

        /// Whether the connection wants more TLS bytes.
        pub fn wants_read(&self) -> bool {
            self.core.wants_read()
        }

        /// Decrypted bytes waiting for [`reader`](Self::reader).
        pub(crate) fn plaintext_len(&self) -> usize {
            self.core.plaintext_len()
        }
    };
}
pub(crate) use connection_methods;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::CipherSuite;

    struct NoHandshake;

    impl Handshake for NoHandshake {
        fn handle(
            &mut self,
            _: &mut Core,
            _: HandshakeType,
            _: &[u8],
            _: &Sm3,
        ) -> Result<(), Error> {
            Err(bad(AlertDescription::UnexpectedMessage, "no handshake"))
        }

        fn on_ccs(&mut self) -> Result<(), Error> {
            Err(bad(AlertDescription::UnexpectedMessage, "no handshake"))
        }
    }

    fn keys() -> RecordProtection {
        RecordProtection::new(CipherSuite::EccSm4GcmSm3, &[], &[9; 16], &[1; 4]).expect("keys")
    }

    /// A core past its handshake with GCM keys both ways and the sequence numbers given.
    fn core_at(read_seq: u64, write_seq: u64) -> Core {
        let mut core = Core::new(true, Arc::new(crate::SystemRandom), None);
        core.handshaking = false;
        core.read_prot = Some(keys());
        core.write_prot = Some(keys());
        core.read_seq = read_seq;
        core.write_seq = write_seq;
        core
    }

    /// The last sequence number before 2^64 − 1 is used; the next write is refused with
    /// SequenceExhausted and the connection stays closed (no record with a reused or
    /// wrapped number goes out).
    #[test]
    fn write_sequence_does_not_wrap() {
        let mut core = core_at(0, u64::MAX - 1);
        assert_eq!(core.write_plain(b"last").expect("last record"), 4);
        let sent = core.outgoing.len();
        assert_eq!(&core.outgoing[5..13], &(u64::MAX - 1).to_be_bytes());
        let e = core.write_plain(b"one more").unwrap_err();
        assert_eq!(e.to_string(), Error::SequenceExhausted.to_string());
        assert_eq!(core.outgoing.len(), sent);
        assert!(core.write_plain(b"again").is_err());
        assert_eq!(core.outgoing.len(), sent);
    }

    /// The protected records in `core`'s outgoing buffer: each one's fragment length.
    fn record_lengths(core: &Core) -> Vec<usize> {
        let mut out = &core.outgoing[core.out_start..];
        let mut lens = Vec::new();
        while out.len() >= 5 {
            let len = u16::from_be_bytes([out[3], out[4]]) as usize;
            lens.push(len);
            out = &out[5 + len..];
        }
        assert!(out.is_empty(), "a whole number of records");
        lens
    }

    /// A vectored write seals its buffers together: a 38-byte head, an empty buffer and a
    /// 16 KiB body are two records (2^14 bytes, then 38), not three, and they open to the
    /// joined bytes; a plain write of the same bytes gives the same records.
    #[test]
    fn vectored_write_spans_buffers() {
        let head: Vec<u8> = (0..38u8).collect();
        let body: Vec<u8> = (0..MAX_FRAGMENT).map(|i| (i * 7) as u8).collect();
        let joined = [&head[..], &body[..]].concat();
        let mut core = core_at(0, 0);
        let bufs = [
            io::IoSlice::new(&head),
            io::IoSlice::new(&[]),
            io::IoSlice::new(&body),
        ];
        assert_eq!(
            core.write_plain_vectored(&bufs).expect("writes"),
            joined.len()
        );
        assert_eq!(record_lengths(&core), [MAX_FRAGMENT + 24, 38 + 24]);
        let mut plain = core_at(0, 0);
        plain.write_plain(&joined).expect("writes");
        assert_eq!(plain.outgoing, core.outgoing);

        let mut peer = core_at(0, 0);
        let mut sent = Vec::new();
        while core.wants_write() {
            core.write_tls(&mut sent).expect("to a Vec");
        }
        assert!(core.outgoing.is_empty() && core.out_start == 0);
        peer.read_tls(&mut &sent[..]).expect("reads");
        peer.process(&mut NoHandshake).expect("opens");
        assert_eq!(peer.plaintext_len(), joined.len());
        let mut got = vec![0u8; joined.len()];
        assert_eq!(peer.read_plain(&mut got).expect("reads"), joined.len());
        assert_eq!(got, joined);
    }

    /// A core past its handshake with CBC keys both ways and the generator `rng`.
    fn cbc_core(rng: Arc<dyn SecureRandom>) -> Core {
        let keys = || {
            RecordProtection::new(CipherSuite::EccSm4CbcSm3, &[7; 32], &[9; 16], &[1; 16])
                .expect("keys")
        };
        let mut core = Core::new(true, rng, None);
        core.handshaking = false;
        core.read_prot = Some(keys());
        core.write_prot = Some(keys());
        core
    }

    /// The explicit IV (the fragment's first 16 bytes) of each record in `core`'s outgoing
    /// buffer.
    fn record_ivs(core: &Core) -> Vec<[u8; 16]> {
        let mut out = &core.outgoing[core.out_start..];
        let mut ivs = Vec::new();
        while out.len() >= 5 {
            let len = u16::from_be_bytes([out[3], out[4]]) as usize;
            ivs.push(out[5..21].try_into().expect("16 bytes"));
            out = &out[5 + len..];
        }
        ivs
    }

    /// With the configurations' default (OS) generator, a connection takes its CBC IVs
    /// from its pool: over 100 records (three refills and more) no IV repeats, none is
    /// zero, a second connection shares none of them, and the records open.
    #[test]
    fn cbc_ivs_never_repeat_and_differ_across_connections() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..2 {
            let mut core = cbc_core(crate::keys::default_rng());
            for i in 0..100u8 {
                core.write_plain(&[i; 40]).expect("writes");
            }
            assert!(core.ivs.is_some(), "the default generator fills a pool");
            let ivs = record_ivs(&core);
            assert_eq!(ivs.len(), 100);
            for iv in ivs {
                assert_ne!(iv, [0; 16]);
                assert!(seen.insert(iv), "an IV repeated");
            }
            let mut peer = cbc_core(crate::keys::default_rng());
            let mut sent = Vec::new();
            while core.wants_write() {
                core.write_tls(&mut sent).expect("to a Vec");
            }
            let mut rd = &sent[..];
            while !rd.is_empty() {
                peer.read_tls(&mut rd).expect("reads");
                peer.process(&mut NoHandshake).expect("opens");
            }
            assert_eq!(peer.plaintext_len(), 100 * 40);
        }
    }

    /// A generator that gives call n the bytes n, n+1, … and counts the calls.
    #[derive(Debug, Default)]
    struct Counting(std::sync::Mutex<Vec<usize>>);

    impl SecureRandom for Counting {
        fn fill(&self, buf: &mut [u8]) -> Result<(), rustls::crypto::GetRandomFailed> {
            let mut calls = self.0.lock().expect("lock");
            let n = calls.len();
            calls.push(buf.len());
            for (i, b) in buf.iter_mut().enumerate() {
                *b = (n + i) as u8;
            }
            Ok(())
        }
    }

    /// A generator of the caller's is asked for each record's IV, 16 bytes a call, and
    /// the IV is what it gave (no pool).
    #[test]
    fn cbc_ivs_from_a_callers_generator_one_call_per_record() {
        let rng = Arc::new(Counting::default());
        let mut core = cbc_core(rng.clone());
        for _ in 0..40 {
            core.write_plain(b"GET / HTTP/1.1").expect("writes");
        }
        assert!(core.ivs.is_none());
        assert_eq!(*rng.0.lock().expect("lock"), vec![16; 40]);
        for (n, iv) in record_ivs(&core).into_iter().enumerate() {
            assert_eq!(iv, core::array::from_fn(|i| (n + i) as u8));
        }
    }

    /// The pool draws IV_BATCH IVs per call and hands them out in order, each once.
    #[test]
    fn iv_pool_draws_once_per_batch() {
        let rng = Counting::default();
        let mut pool = IvPool::new();
        let ivs: Vec<[u8; 16]> = (0..2 * IV_BATCH + 6)
            .map(|_| pool.take(&rng).expect("IV"))
            .collect();
        assert_eq!(*rng.0.lock().expect("lock"), vec![16 * IV_BATCH; 3]);
        for (k, iv) in ivs.iter().enumerate() {
            let (call, at) = (k / IV_BATCH, 16 * (k % IV_BATCH));
            assert_eq!(
                *iv,
                core::array::from_fn(|i| (call + at + i) as u8),
                "IV {k}"
            );
        }
        assert!(
            pool.buf[..16 * 6].iter().all(|&b| b == 0),
            "taken slots cleared"
        );
    }

    /// A record arriving when the read sequence is at its limit is refused, not opened
    /// under a wrapped number.
    #[test]
    fn read_sequence_does_not_wrap() {
        let frag = keys().seal(u64::MAX - 1, 23, b"hi", &[0; 16]);
        let mut rec = vec![23, 1, 1, 0, frag.len() as u8];
        rec.extend_from_slice(&frag);
        let mut core = core_at(u64::MAX - 1, 0);
        core.incoming = rec.clone();
        core.incoming_len = rec.len();
        core.process(&mut NoHandshake)
            .expect("the last number opens");
        assert_eq!(core.plain_in.len(), 2);
        let mut core = core_at(u64::MAX, 0);
        core.incoming_len = rec.len();
        core.incoming = rec;
        assert_eq!(
            core.process(&mut NoHandshake),
            Err(Error::SequenceExhausted)
        );
        assert!(core.plain_in.is_empty());
    }
}
