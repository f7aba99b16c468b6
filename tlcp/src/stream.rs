//! Blocking streams over `std::io::{Read, Write}` transports.

use crate::client::ClientConnection;
use crate::error::Error;
use crate::server::ServerConnection;
use std::io::{self, Read, Write};

/// What [`Stream`] needs from a connection.
pub trait Connection {
    /// See [`ClientConnection::read_tls`].
    fn read_tls(&mut self, rd: &mut dyn Read) -> io::Result<usize>;
    /// See [`ClientConnection::write_tls`].
    fn write_tls(&mut self, wr: &mut dyn Write) -> io::Result<usize>;
    /// See [`ClientConnection::process_new_packets`].
    fn process_new_packets(&mut self) -> Result<crate::IoState, Error>;
    /// See [`ClientConnection::reader`].
    fn read_plain(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// See [`ClientConnection::writer`].
    fn write_plain(&mut self, buf: &[u8]) -> io::Result<usize>;
    /// Every buffer at once, records spanning them (see [`crate::Writer`]'s
    /// `write_vectored`).
    fn write_plain_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize>;
    /// Decrypted bytes waiting to be read: at most what the next
    /// [`read_plain`](Self::read_plain) gives.
    fn plaintext_len(&self) -> usize;
    /// See [`ClientConnection::is_handshaking`].
    fn is_handshaking(&self) -> bool;
    /// See [`ClientConnection::wants_write`].
    fn wants_write(&self) -> bool;
    /// See [`ClientConnection::send_close_notify`].
    fn send_close_notify(&mut self);
}

macro_rules! impl_connection {
    ($t:ty) => {
        impl Connection for $t {
            fn read_tls(&mut self, rd: &mut dyn Read) -> io::Result<usize> {
                <$t>::read_tls(self, rd)
            }
            fn write_tls(&mut self, wr: &mut dyn Write) -> io::Result<usize> {
                <$t>::write_tls(self, wr)
            }
            fn process_new_packets(&mut self) -> Result<crate::IoState, Error> {
                <$t>::process_new_packets(self)
            }
            fn read_plain(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.reader().read(buf)
            }
            fn write_plain(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.writer().write(buf)
            }
            fn write_plain_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
                self.writer().write_vectored(bufs)
            }
            fn plaintext_len(&self) -> usize {
                <$t>::plaintext_len(self)
            }
            fn is_handshaking(&self) -> bool {
                <$t>::is_handshaking(self)
            }
            fn wants_write(&self) -> bool {
                <$t>::wants_write(self)
            }
            fn send_close_notify(&mut self) {
                <$t>::send_close_notify(self)
            }
        }
    };
}

impl_connection!(ClientConnection);
impl_connection!(ServerConnection);

/// Writes everything queued, then (if asked) reads and processes one batch; errors from
/// processing are flushed (their alert goes out) before they are returned.
fn complete_io<C: Connection + ?Sized, T: Read + Write>(
    conn: &mut C,
    sock: &mut T,
    read: bool,
) -> io::Result<usize> {
    while conn.wants_write() {
        conn.write_tls(sock)?;
    }
    sock.flush()?;
    if !read {
        return Ok(0);
    }
    let n = conn.read_tls(sock)?;
    let res = conn.process_new_packets();
    while conn.wants_write() {
        if conn.write_tls(sock).is_err() {
            break;
        }
    }
    let _ = sock.flush();
    res?;
    Ok(n)
}

fn handshake<C: Connection + ?Sized, T: Read + Write>(
    conn: &mut C,
    sock: &mut T,
) -> io::Result<()> {
    while conn.is_handshaking() {
        if complete_io(conn, sock, true)? == 0 && conn.is_handshaking() {
            return Err(Error::UnexpectedEof.into());
        }
    }
    complete_io(conn, sock, false)?;
    Ok(())
}

fn read<C: Connection + ?Sized, T: Read + Write>(
    conn: &mut C,
    sock: &mut T,
    buf: &mut [u8],
) -> io::Result<usize> {
    handshake(conn, sock)?;
    loop {
        match conn.read_plain(buf) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                complete_io(conn, sock, true)?;
            }
            other => return other,
        }
    }
}

fn write<C: Connection + ?Sized, T: Read + Write>(
    conn: &mut C,
    sock: &mut T,
    buf: &[u8],
) -> io::Result<usize> {
    handshake(conn, sock)?;
    let n = conn.write_plain(buf)?;
    complete_io(conn, sock, false)?;
    Ok(n)
}

/// A connection and a borrowed transport, as one `Read + Write`.
pub struct Stream<'a, C: Connection + ?Sized, T: Read + Write> {
    /// The connection.
    pub conn: &'a mut C,
    /// The transport.
    pub sock: &'a mut T,
}

impl<'a, C: Connection + ?Sized, T: Read + Write> Stream<'a, C, T> {
    /// Joins them.
    pub fn new(conn: &'a mut C, sock: &'a mut T) -> Self {
        Stream { conn, sock }
    }
}

impl<C: Connection + ?Sized, T: Read + Write> Read for Stream<'_, C, T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read(self.conn, self.sock, buf)
    }
}

impl<C: Connection + ?Sized, T: Read + Write> Write for Stream<'_, C, T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        write(self.conn, self.sock, buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        complete_io(self.conn, self.sock, false).map(|_| ())
    }
}

/// A connection that owns its transport, as one `Read + Write`.
#[derive(Debug)]
pub struct StreamOwned<C: Connection, T: Read + Write> {
    /// The connection.
    pub conn: C,
    /// The transport.
    pub sock: T,
}

impl<C: Connection, T: Read + Write> StreamOwned<C, T> {
    /// Joins them.
    pub fn new(conn: C, sock: T) -> Self {
        StreamOwned { conn, sock }
    }

    /// Runs the handshake to completion.
    pub fn handshake(&mut self) -> io::Result<()> {
        handshake(&mut self.conn, &mut self.sock)
    }

    /// Sends close_notify and flushes it.
    pub fn close(&mut self) -> io::Result<()> {
        self.conn.send_close_notify();
        complete_io(&mut self.conn, &mut self.sock, false).map(|_| ())
    }
}

impl<C: Connection, T: Read + Write> Read for StreamOwned<C, T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read(&mut self.conn, &mut self.sock, buf)
    }
}

impl<C: Connection, T: Read + Write> Write for StreamOwned<C, T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        write(&mut self.conn, &mut self.sock, buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        complete_io(&mut self.conn, &mut self.sock, false).map(|_| ())
    }
}
