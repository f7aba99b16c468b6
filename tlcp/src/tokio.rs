//! Async streams over tokio transports (feature `tokio`): [`TlcpConnector`] and
//! [`TlcpAcceptor`] give a [`TlcpStream`] that is `AsyncRead + AsyncWrite`, as
//! tokio-rustls does, so hyper/axum-style code can sit on TLCP.

use crate::client::ClientConnection;
use crate::config::{ClientConfig, ServerConfig};
use crate::server::ServerConnection;
use crate::stream::Connection;
use ::tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use rustls_pki_types::ServerName;
use std::future::poll_fn;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// Makes client connections.
#[derive(Clone, Debug)]
pub struct TlcpConnector {
    config: Arc<ClientConfig>,
}

impl From<Arc<ClientConfig>> for TlcpConnector {
    fn from(config: Arc<ClientConfig>) -> Self {
        TlcpConnector { config }
    }
}

impl TlcpConnector {
    /// Runs the handshake over `io` with the server `name`.
    pub async fn connect<IO: AsyncRead + AsyncWrite + Unpin>(
        &self,
        name: ServerName<'static>,
        io: IO,
    ) -> io::Result<TlcpStream<IO, ClientConnection>> {
        self.connect_noting_hello(name, io)
            .await
            .map_err(|(e, _)| e)
    }

    /// [`connect`](Self::connect), with each error saying whether the server's
    /// ServerHello had arrived (the `https` connector's test of a refusal of TLCP).
    pub(crate) async fn connect_noting_hello<IO: AsyncRead + AsyncWrite + Unpin>(
        &self,
        name: ServerName<'static>,
        io: IO,
    ) -> Result<TlcpStream<IO, ClientConnection>, (io::Error, bool)> {
        let conn =
            ClientConnection::new(self.config.clone(), name).map_err(|e| (e.into(), false))?;
        let mut stream = TlcpStream {
            io,
            conn,
            shutdown: false,
        };
        match poll_fn(|cx| stream.poll_handshake(cx)).await {
            Ok(()) => Ok(stream),
            Err(e) => Err((e, stream.conn.negotiated_cipher_suite().is_some())),
        }
    }
}

/// Accepts server connections.
#[derive(Clone, Debug)]
pub struct TlcpAcceptor {
    config: Arc<ServerConfig>,
}

impl From<Arc<ServerConfig>> for TlcpAcceptor {
    fn from(config: Arc<ServerConfig>) -> Self {
        TlcpAcceptor { config }
    }
}

impl TlcpAcceptor {
    /// Runs the handshake over `io`.
    pub async fn accept<IO: AsyncRead + AsyncWrite + Unpin>(
        &self,
        io: IO,
    ) -> io::Result<TlcpStream<IO, ServerConnection>> {
        let conn = ServerConnection::new(self.config.clone())?;
        let mut stream = TlcpStream {
            io,
            conn,
            shutdown: false,
        };
        poll_fn(|cx| stream.poll_handshake(cx)).await?;
        Ok(stream)
    }
}

/// A TLCP connection over an async transport.
#[derive(Debug)]
pub struct TlcpStream<IO, C> {
    pub(crate) io: IO,
    pub(crate) conn: C,
    shutdown: bool,
}

/// `Read`/`Write` over an async transport for one poll: `Pending` becomes `WouldBlock`.
struct SyncIo<'a, 'b, IO> {
    io: &'a mut IO,
    cx: &'a mut Context<'b>,
}

impl<IO: AsyncRead + Unpin> Read for SyncIo<'_, '_, IO> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut rb = ReadBuf::new(buf);
        match Pin::new(&mut *self.io).poll_read(self.cx, &mut rb) {
            Poll::Ready(Ok(())) => Ok(rb.filled().len()),
            Poll::Ready(Err(e)) => Err(e),
            Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
        }
    }
}

impl<IO: AsyncWrite + Unpin> Write for SyncIo<'_, '_, IO> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match Pin::new(&mut *self.io).poll_write(self.cx, buf) {
            Poll::Ready(r) => r,
            Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match Pin::new(&mut *self.io).poll_flush(self.cx) {
            Poll::Ready(r) => r,
            Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
        }
    }
}

fn pending_on_block<T>(r: io::Result<T>) -> Poll<io::Result<T>> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Poll::Pending,
        other => Poll::Ready(other),
    }
}

impl<IO: AsyncRead + AsyncWrite + Unpin, C: Connection + Unpin> TlcpStream<IO, C> {
    /// The connection (suite, peer certificates, resumption).
    pub fn get_ref(&self) -> (&IO, &C) {
        (&self.io, &self.conn)
    }

    /// Writes all queued TLS bytes.
    fn poll_write_all_tls(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.conn.wants_write() {
            let mut sync = SyncIo {
                io: &mut self.io,
                cx,
            };
            match pending_on_block(self.conn.write_tls(&mut sync)) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(_)) => {}
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }

    /// Reads one batch of TLS bytes and processes them.
    fn poll_read_tls(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let mut sync = SyncIo {
            io: &mut self.io,
            cx,
        };
        let n = match pending_on_block(self.conn.read_tls(&mut sync)) {
            Poll::Ready(Ok(n)) => n,
            other => return other,
        };
        if let Err(e) = self.conn.process_new_packets() {
            // Best effort: get the alert out.
            let _ = self.poll_write_all_tls(cx);
            return Poll::Ready(Err(e.into()));
        }
        Poll::Ready(Ok(n))
    }

    fn poll_handshake(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            if let Poll::Ready(Err(e)) = self.poll_write_all_tls(cx) {
                return Poll::Ready(Err(e));
            }
            if !self.conn.is_handshaking() {
                return self.poll_write_all_tls(cx);
            }
            if ready!(self.poll_read_tls(cx))? == 0 {
                return Poll::Ready(Err(crate::Error::UnexpectedEof.into()));
            }
        }
    }

    /// Writes plaintext with `write` (one buffer or several): pushes out what is waiting
    /// first, so that at most one batch stays queued, then the records just sealed.
    fn poll_write_with(
        &mut self,
        cx: &mut Context<'_>,
        write: impl FnOnce(&mut C) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_write_all_tls(cx))?;
        let n = write(&mut self.conn)?;
        if let Poll::Ready(Err(e)) = self.poll_write_all_tls(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(n))
    }
}

impl<IO: AsyncRead + AsyncWrite + Unpin, C: Connection + Unpin> AsyncRead for TlcpStream<IO, C> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            // Only as much of the caller's buffer is zeroed as there is plaintext for
            // (hyper hands over its whole spare capacity, often hundreds of KiB).
            let want = buf.remaining().min(this.conn.plaintext_len());
            match this.conn.read_plain(buf.initialize_unfilled_to(want)) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
            if let Poll::Ready(Err(e)) = this.poll_write_all_tls(cx) {
                return Poll::Ready(Err(e));
            }
            ready!(this.poll_read_tls(cx))?;
        }
    }
}

impl<IO: AsyncRead + AsyncWrite + Unpin, C: Connection + Unpin> AsyncWrite for TlcpStream<IO, C> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_with(cx, |conn| conn.write_plain(buf))
    }

    /// Every buffer at once: records span them (hyper's head and body go out as one
    /// record, and hyper need not copy the body next to the head first).
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_with(cx, |conn| conn.write_plain_vectored(bufs))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match this.poll_write_all_tls(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut this.io).poll_flush(cx),
            other => other,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.shutdown {
            this.shutdown = true;
            this.conn.send_close_notify();
        }
        match this.poll_write_all_tls(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut this.io).poll_shutdown(cx),
            other => other,
        }
    }
}
