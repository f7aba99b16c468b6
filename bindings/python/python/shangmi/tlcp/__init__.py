"""TLCP (GB/T 38636) from Python: a blocking client with a socket's shape.

    import shangmi.tlcp
    with shangmi.tlcp.connect("gateway.example", 443, ca="ca.pem") as s:
        s.sendall(b"GET / HTTP/1.1\\r\\nHost: gateway.example\\r\\nConnection: close\\r\\n\\r\\n")
        print(s.cipher(), s.recv(4096))

For ``requests``: ``shangmi.tlcp.requests.TLCPAdapter`` (mount it on ``https://``). The
handshake and every blocking read and write run with the GIL released.
"""

import io
import os

from .. import _shangmi

TLCPError = _shangmi.TLCPError

#: The suites, in the default order of preference.
SUITES = ("ECC_SM4_GCM_SM3", "ECDHE_SM4_GCM_SM3", "ECC_SM4_CBC_SM3", "ECDHE_SM4_CBC_SM3")

__all__ = ["SUITES", "TLCPError", "TLCPSocket", "connect", "load_certificates", "load_key"]


def _read(src, what):
    """bytes of PEM/DER given as bytes, PEM text, or a path (str or os.PathLike)."""
    if isinstance(src, (bytes, bytearray, memoryview)):
        return bytes(src)
    if isinstance(src, str) and "-----BEGIN" in src:
        return src.encode("ascii")
    if isinstance(src, (str, os.PathLike)):
        with open(src, "rb") as f:
            return f.read()
    raise TypeError("%s must be a path, PEM text, bytes or a Certificate, not %s"
                    % (what, type(src).__name__))


def load_certificates(src, what="certificates"):
    """A list of ``shangmi.Certificate`` from a Certificate, a list of them, or a path /
    PEM text / bytes (a PEM bundle or one DER certificate)."""
    if isinstance(src, _shangmi.Certificate):
        return [src]
    if isinstance(src, (list, tuple)):
        out = []
        for s in src:
            out.extend(load_certificates(s, what))
        return out
    return _shangmi.Certificate.load_all(_read(src, what))


def load_key(src, password=None, what="key"):
    """A ``shangmi.PrivateKey`` from a PrivateKey, or a path / PEM text / DER bytes."""
    if isinstance(src, _shangmi.PrivateKey):
        return src
    data = _read(src, what)
    if data.lstrip().startswith(b"-----BEGIN"):
        return _shangmi.PrivateKey.from_pem(data.decode("ascii"), password)
    return _shangmi.PrivateKey.from_der(data, password)


class _Raw(io.RawIOBase):
    """The raw stream under ``TLCPSocket.makefile``. As with ``socket.socket``, the
    connection stays open while a file made from it is open, even after the socket's
    ``close()`` (``http.client`` closes the socket of an HTTP/1.0 response and goes on
    reading its body from the file until the server closes)."""

    def __init__(self, sock, mode):
        super().__init__()
        self._sock = sock
        self._mode = mode
        sock._io_refs += 1

    def close(self):
        if not self.closed:
            self._sock._decref_socketios()
        super().close()

    def readable(self):
        return "r" in self._mode

    def writable(self):
        return "w" in self._mode

    def readinto(self, b):
        data = self._sock.recv(len(b))
        n = len(data)
        b[:n] = data
        return n

    def write(self, b):
        self._sock.sendall(b)
        return len(b)


class TLCPSocket(object):
    """A TLCP connection with the methods of a socket that code written for ``ssl``
    sockets calls: ``send``, ``sendall``, ``recv``, ``recv_into``, ``makefile``,
    ``close``, ``shutdown``, ``fileno``, ``settimeout``/``gettimeout``, ``cipher()``,
    ``version()``, ``getpeercert()``; a context manager."""

    def __init__(self, native, server_hostname):
        self._s = native
        self.server_hostname = server_hostname
        self._io_refs = 0
        self._closed = False

    def _decref_socketios(self):
        self._io_refs -= 1
        if self._closed and self._io_refs <= 0:
            self._s.close()

    def send(self, data):
        return self._s.send(data)

    def sendall(self, data):
        self._s.sendall(data)

    def recv(self, bufsize, flags=0):
        if flags:
            raise ValueError("flags are not supported on a TLCP socket")
        return self._s.recv(bufsize)

    def recv_into(self, buffer, nbytes=0, flags=0):
        view = memoryview(buffer).cast("B")
        data = self.recv(nbytes or len(view), flags)
        view[: len(data)] = data
        return len(data)

    def makefile(self, mode="r", buffering=None, encoding=None, errors=None, newline=None):
        if not set(mode) <= {"r", "w", "b"}:
            raise ValueError("invalid mode %r (only r, w, b)" % mode)
        raw = _Raw(self, "r" if "r" in mode else "w")
        if buffering == 0:
            if "b" not in mode:
                raise ValueError("unbuffered streams must be binary")
            return raw
        size = io.DEFAULT_BUFFER_SIZE if buffering in (None, -1) else buffering
        f = io.BufferedReader(raw, size) if "r" in mode else io.BufferedWriter(raw, size)
        if "b" in mode:
            return f
        return io.TextIOWrapper(f, encoding, errors, newline)

    def close(self):
        """Closes the connection (close_notify), or, while files made by ``makefile`` are
        open, when the last of them is closed."""
        self._closed = True
        if self._io_refs <= 0:
            self._s.close()

    def shutdown(self, how=None):
        """Sends close_notify and closes (TLCP has no half-close)."""
        self._s.close()

    def fileno(self):
        return self._s.fileno()

    def settimeout(self, timeout):
        self._s.settimeout(timeout)

    def gettimeout(self):
        return self._s.gettimeout()

    def setblocking(self, flag):
        if not flag:
            raise ValueError("a TLCP socket is blocking (use settimeout)")
        self._s.settimeout(None)

    def cipher(self):
        """``(suite, "TLCPv1.1", 128)``, as ``ssl.SSLSocket.cipher()``."""
        return self._s.cipher()

    def version(self):
        return self._s.version()

    def session_reused(self):
        return self._s.session_reused()

    def selected_alpn_protocol(self):
        return self._s.selected_alpn_protocol()

    def peer_certificates(self):
        """The server's sign certificate, encryption certificate, then its chain."""
        return self._s.peer_certificates()

    def getpeercert(self, binary_form=False):
        """The server's sign certificate: DER with ``binary_form``, else a dict shaped like
        ``ssl``'s (subject, issuer, serialNumber, notBefore, notAfter, subjectAltName) with
        the names as text and the times as unix seconds."""
        certs = self._s.peer_certificates()
        if not certs:
            return None
        c = certs[0]
        if binary_form:
            return c.to_der()
        return {
            "subject": c.subject,
            "issuer": c.issuer,
            "serialNumber": c.serial.upper(),
            "notBefore": c.not_before,
            "notAfter": c.not_after,
            "subjectAltName": tuple(
                tuple(n.split(":", 1)) for n in c.subject_alt_names
            ),
        }

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<shangmi.tlcp.TLCPSocket %s %s>" % (self.server_hostname, self._s.cipher())


def connect(host, port=443, ca=None, *, sign_cert=None, sign_key=None, enc_cert=None,
            enc_key=None, key_password=None, suites=None, server_name=None, timeout=None,
            crls=None, name_check="san", alpn=None, sni=True, gmssl_compat=False):
    """Connects to a TLCP server and runs the handshake; returns a ``TLCPSocket``.

    ``ca``: the root certificates both server certificates must chain to (a path, PEM
    text, bytes, a ``shangmi.Certificate`` or a list). ``crls``: CRLs (paths, PEM or DER)
    checked for both. ``sign_cert`` (with its chain) / ``sign_key`` and ``enc_cert`` /
    ``enc_key``: client certificates, for servers that ask and the ECDHE suites.
    ``suites``: names from ``SUITES``. ``server_name`` (default ``host``) is checked
    against the sign certificate (``name_check``: "san", "cn-fallback", or "none" for a
    private PKI whose leaves carry no host name). ``timeout`` in seconds for the connect
    and every read and write (``TimeoutError``). Failures of the protocol or of the
    server's certificates raise ``TLCPError`` (an OSError)."""
    if ca is None:
        raise ValueError("ca is required: TLCP servers are checked against your roots")
    if not isinstance(host, str):
        raise TypeError("host must be a str")
    roots = load_certificates(ca, "ca")
    if crls is None:
        crls = []
    elif not isinstance(crls, (list, tuple)):
        crls = [crls]
    crl_docs = [_read(c, "crls") for c in crls]
    client = [sign_cert, sign_key, enc_cert, enc_key]
    kw = {}
    if any(x is not None for x in client):
        if any(x is None for x in client):
            raise ValueError("client certificates need sign_cert, sign_key, enc_cert and enc_key")
        kw = dict(
            sign_chain=load_certificates(sign_cert, "sign_cert"),
            sign_key=load_key(sign_key, key_password, "sign_key"),
            enc_cert=load_certificates(enc_cert, "enc_cert")[0],
            enc_key=load_key(enc_key, key_password, "enc_key"),
        )
    native = _shangmi.tlcp_connect(
        host, port, roots, suites=None if suites is None else list(suites),
        server_name=server_name, timeout=timeout, crls=crl_docs or None,
        name_check=name_check, alpn=None if alpn is None else list(alpn), sni=sni,
        gmssl_compat=gmssl_compat, **kw)
    return TLCPSocket(native, server_name or host)
