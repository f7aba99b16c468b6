"""Certificates, requests, CRLs, CMS, PKCS#12 and the TLCP client from Python.

The TLCP server is the package's own ``_shangmi._tlcp_test_server`` (shangmi-tlcp's server
on a thread of this process, answering one fixed response per connection): no binary to
build, no port left open (it serves the connections it was asked for, then exits)."""

import pytest

import shangmi
import shangmi.tlcp
from shangmi import _shangmi


@pytest.fixture(scope="module")
def pki():
    ca_key = shangmi.PrivateKey.generate()
    ca = shangmi.cert_self_signed(ca_key, "/C=CN/O=Test/CN=Test CA")
    sign_key, enc_key = shangmi.PrivateKey.generate(), shangmi.PrivateKey.generate()
    csr = shangmi.CertificateRequest.create(sign_key, "/C=CN/O=Test/CN=localhost",
                                            ["DNS:localhost", "IP:127.0.0.1"])
    sign = shangmi.cert_issue_from_request(ca, ca_key, csr, profile="tlcp-sign")
    enc = shangmi.cert_issue(ca, ca_key, enc_key.public_key(), "/C=CN/O=Test/CN=localhost",
                             profile="tlcp-enc", sans=["DNS:localhost"])
    return dict(ca_key=ca_key, ca=ca, sign_key=sign_key, enc_key=enc_key, csr=csr,
                sign=sign, enc=enc)


def test_certificate_show_and_encodings(pki):
    ca, sign = pki["ca"], pki["sign"]
    assert ca.subject == ca.issuer and "CN=Test CA" in ca.subject
    assert ca.is_ca and not sign.is_ca
    assert "CN=localhost" in sign.subject and sign.issuer == ca.subject
    assert sign.common_name == "localhost"
    assert sign.subject_alt_names == ["DNS:localhost", "IP:127.0.0.1"]
    assert sign.serial_number == int(sign.serial, 16) > 0
    assert sign.not_before < sign.not_after
    assert shangmi.Certificate.from_pem(sign.to_pem()) == sign
    assert shangmi.Certificate.from_der(sign.to_der()) == sign
    assert shangmi.Certificate.load_all(sign.to_pem() + ca.to_pem()) == [sign, ca]
    assert sign.public_key() == pki["sign_key"].public_key()
    assert len(sign.fingerprint()) == 64 and sign.fingerprint() != ca.fingerprint()
    with pytest.raises(ValueError):
        shangmi.Certificate.from_der(b"\x30\x03\x02\x01\x01")
    with pytest.raises(ValueError):
        shangmi.Certificate.from_pem("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")


def test_request_parse(pki):
    csr = pki["csr"]
    again = shangmi.CertificateRequest.from_pem(csr.to_pem())
    assert again.subject == csr.subject and "CN=localhost" in csr.subject
    assert again.subject_alt_names == ["DNS:localhost", "IP:127.0.0.1"]
    assert again.public_key() == pki["sign_key"].public_key()
    assert shangmi.CertificateRequest.from_der(csr.to_der()).to_der() == csr.to_der()
    with pytest.raises(ValueError):
        shangmi.CertificateRequest.create(pki["sign_key"], "no slashes")
    with pytest.raises(ValueError):
        shangmi.CertificateRequest.create(pki["sign_key"], "/CN=x", ["FTP:x"])


def test_verify_chain_host_and_crl(pki):
    ca, sign = pki["ca"], pki["sign"]
    path = shangmi.verify_chain(sign, [ca], purpose="tlcp-sign", host="localhost")
    assert path == [sign, ca]
    with pytest.raises(shangmi.CertificateError):
        shangmi.verify_chain(sign, [ca], host="example.com")
    with pytest.raises(shangmi.CertificateError):
        shangmi.verify_chain(sign, [ca], purpose="tlcp-enc")
    with pytest.raises(shangmi.CertificateError):
        shangmi.verify_chain(sign, [ca], time=sign.not_after + 86400)
    other = shangmi.cert_self_signed(shangmi.PrivateKey.generate(), "/CN=Other CA")
    with pytest.raises(shangmi.CertificateError):
        shangmi.verify_chain(sign, [other])
    revoked = shangmi.crl_issue(ca, pki["ca_key"], [bytes.fromhex(sign.serial)])
    clean = shangmi.crl_issue(ca, pki["ca_key"], [b"\x01\x02"])
    shangmi.verify_chain(sign, [ca], crls=[clean])
    with pytest.raises(shangmi.CertificateError, match="(?i)revoked"):
        shangmi.verify_chain(sign, [ca], crls=[revoked])
    with pytest.raises(ValueError):
        shangmi.verify_chain(sign, [ca], purpose="nonsense")


def test_issue_intermediate_chain(pki):
    ca, ca_key = pki["ca"], pki["ca_key"]
    ik = shangmi.PrivateKey.generate()
    inter = shangmi.cert_issue(ca, ca_key, ik.public_key(), "/CN=Intermediate", profile="ca",
                               path_len=0)
    lk = shangmi.PrivateKey.generate()
    leaf = shangmi.cert_issue(inter, ik, lk.public_key(), "/CN=svc.example", sans=["DNS:svc.example"])
    assert shangmi.verify_chain(leaf, [ca], intermediates=[inter], host="svc.example",
                                purpose="tls-server") == [leaf, inter, ca]
    with pytest.raises(shangmi.CertificateError):
        shangmi.verify_chain(leaf, [ca])
    with pytest.raises(shangmi.ShangmiError):
        shangmi.cert_issue(ca, ik, lk.public_key(), "/CN=x")  # key is not the issuer's
    # no issuer and no public key: self-signed, what cert_self_signed does; one alone refused
    root = shangmi.cert_issue(None, ik, None, "/CN=Root", profile="ca")
    assert root.subject == root.issuer and "CN=Root" in root.subject
    for issuer, public in ((ca, None), (None, lk.public_key())):
        with pytest.raises(ValueError, match="needs the issuer and the public key"):
            shangmi.cert_issue(issuer, ca_key, public, "/CN=x")


@pytest.mark.parametrize("rfc5652", [False, True])
def test_cms_sign_verify(pki, rfc5652):
    ca, key = pki["ca"], pki["ca_key"]
    sk = shangmi.PrivateKey.generate()
    signer = shangmi.cert_issue(ca, key, sk.public_key(), "/CN=Signer", profile="tls-client")
    msg = shangmi.cms_sign(b"contract", signer, sk, rfc5652=rfc5652)
    content, signers = shangmi.cms_verify(msg, [ca], purpose="any")
    assert content == b"contract" and signers == [signer]
    det = shangmi.cms_sign(b"contract", signer, sk, detached=True)
    assert shangmi.cms_verify(det, [ca], detached=b"contract", purpose="any")[0] == b"contract"
    with pytest.raises(shangmi.CertificateError):
        shangmi.cms_verify(det, [ca], detached=b"contrACT", purpose="any")
    other = shangmi.cert_self_signed(shangmi.PrivateKey.generate(), "/CN=Other")
    with pytest.raises(shangmi.CertificateError):
        shangmi.cms_verify(msg, [other], purpose="any")
    with pytest.raises(ValueError):
        shangmi.cms_verify(b"\x30\x00", [ca])


def test_cms_encrypt_decrypt(pki):
    sign, enc = pki["sign"], pki["enc"]
    env = shangmi.cms_encrypt(b"for the gateway", [enc, sign])
    assert shangmi.cms_decrypt(env, enc, pki["enc_key"]) == b"for the gateway"
    assert shangmi.cms_decrypt(env, sign, pki["sign_key"]) == b"for the gateway"
    with pytest.raises(shangmi.ShangmiError):
        shangmi.cms_decrypt(env, pki["ca"], pki["ca_key"])


@pytest.mark.parametrize("sm", [False, True])
def test_pkcs12_round_trip(pki, sm):
    p12 = shangmi.pkcs12_export(pki["sign"], pki["sign_key"], "pw", chain=[pki["ca"]], sm=sm)
    key, cert, chain = shangmi.pkcs12_import(p12, "pw")
    assert key.to_bytes() == pki["sign_key"].to_bytes()
    assert cert == pki["sign"] and chain == [pki["ca"]]
    with pytest.raises(shangmi.ShangmiError):
        shangmi.pkcs12_import(p12, "wrong")


BODY = b"TLCP status: ok\n"
PLAIN = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n" \
        b"Connection: close\r\n\r\n%s" % (len(BODY), BODY)
CHUNKED = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n" \
          b"Connection: close\r\n\r\n5\r\nTLCP \r\nb\r\nstatus: ok\n\r\n0\r\n\r\n"
# What Tongsuo's `s_server -www` answers: HTTP/1.0, no length, the body ends at the close
# (http.client closes the socket and reads the body from its file: seen live, the adapter
# once failed there with "the TLCP socket is closed").
UNTIL_CLOSE = b"HTTP/1.0 200 ok\r\nContent-Type: text/plain\r\n\r\n%s" % BODY


def server(pki, response, connections=1):
    return _shangmi._tlcp_test_server([pki["sign"], pki["ca"]], pki["sign_key"], pki["enc"],
                                      pki["enc_key"], response, connections)


@pytest.mark.parametrize("suite", ["ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3"])
def test_tlcp_socket(pki, suite):
    port = server(pki, PLAIN)
    with shangmi.tlcp.connect("127.0.0.1", port, ca=pki["ca"].to_pem(), server_name="localhost",
                              suites=[suite], timeout=10) as s:
        assert s.cipher() == (suite, "TLCPv1.1", 128) and s.version() == "TLCPv1.1"
        assert s.getpeercert()["subjectAltName"] == (("DNS", "localhost"), ("IP", "127.0.0.1"))
        assert shangmi.Certificate.from_der(s.getpeercert(True)) == pki["sign"]
        assert s.peer_certificates()[:2] == [pki["sign"], pki["enc"]]
        s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        f = s.makefile("rb")
        assert f.readline() == b"HTTP/1.1 200 OK\r\n"
        assert f.read().endswith(b"\r\n\r\n" + BODY)
        assert s.recv(10) == b""


def test_tlcp_refuses_unknown_ca_and_wrong_name(pki):
    other = shangmi.cert_self_signed(shangmi.PrivateKey.generate(), "/CN=Other CA")
    port = server(pki, PLAIN, connections=2)
    with pytest.raises(shangmi.tlcp.TLCPError):
        shangmi.tlcp.connect("127.0.0.1", port, ca=[other], server_name="localhost", timeout=10)
    with pytest.raises(shangmi.tlcp.TLCPError):
        shangmi.tlcp.connect("127.0.0.1", port, ca=pki["ca"], server_name="example.com",
                             timeout=10)
    assert issubclass(shangmi.tlcp.TLCPError, OSError)
    with pytest.raises(ValueError):
        shangmi.tlcp.connect("127.0.0.1", port, ca=pki["ca"], suites=["RC4"])
    with pytest.raises(ValueError):
        shangmi.tlcp.connect("127.0.0.1", port, ca=pki["ca"], sign_key=pki["sign_key"])


@pytest.mark.parametrize("response", [PLAIN, CHUNKED, UNTIL_CLOSE],
                         ids=["content-length", "chunked", "until-close"])
def test_requests_adapter(pki, response):
    requests = pytest.importorskip("requests")
    from shangmi.tlcp.requests import TLCPAdapter

    port = server(pki, response)
    session = requests.Session()
    session.mount("https://localhost:%d" % port, TLCPAdapter(ca=pki["ca"]))
    r = session.get("https://localhost:%d/status" % port, timeout=10)
    assert r.status_code == 200 and r.text == BODY.decode()
    assert r.headers["Content-Type"] == "text/plain"


def test_tlcp_timeout_and_gil_released_while_blocked(pki):
    import threading

    port = server(pki, PLAIN)
    s = shangmi.tlcp.connect("127.0.0.1", port, ca=pki["ca"], server_name="localhost")
    s.settimeout(1.5)  # long beside the 0.1 s below, so a loaded machine cannot flake it
    assert s.gettimeout() == 1.5
    started, result = threading.Event(), []

    def reader():
        started.set()
        try:
            s.recv(100)  # the server waits for a request: nothing comes
        except TimeoutError as e:
            result.append(e)

    t = threading.Thread(target=reader)
    t.start()
    started.wait()
    t.join(0.1)
    # This thread runs Python while the reader blocks in recv: the GIL is released.
    alive_before = t.is_alive()
    total = sum(range(1000))
    alive_after = t.is_alive()
    t.join()
    assert alive_before and alive_after and total == 499500
    assert len(result) == 1 and isinstance(result[0], TimeoutError)
    s.close()
    with pytest.raises(OSError):
        s.recv(1)


def test_tlcp_client_certificates_and_ecdhe(pki, tmp_path):
    ca, ca_key = pki["ca"], pki["ca_key"]
    csk, cek = shangmi.PrivateKey.generate(), shangmi.PrivateKey.generate()
    csign = shangmi.cert_issue(ca, ca_key, csk.public_key(), "/CN=client", profile="tlcp-sign")
    cenc = shangmi.cert_issue(ca, ca_key, cek.public_key(), "/CN=client", profile="tlcp-enc")
    (tmp_path / "ca.pem").write_text(ca.to_pem())
    (tmp_path / "sign.pem").write_text(csign.to_pem())
    (tmp_path / "sign.key").write_text(csk.to_pem(password=b"pw"))
    port = _shangmi._tlcp_test_server([pki["sign"], ca], pki["sign_key"], pki["enc"],
                                      pki["enc_key"], PLAIN, 2, client_ca=ca)
    # files for the CA, the sign certificate and its (encrypted) key; objects for the rest
    with shangmi.tlcp.connect("127.0.0.1", port, ca=str(tmp_path / "ca.pem"),
                              server_name="localhost", suites=["ECDHE_SM4_GCM_SM3"],
                              sign_cert=tmp_path / "sign.pem", sign_key=tmp_path / "sign.key",
                              key_password=b"pw", enc_cert=cenc, enc_key=cek, timeout=10) as s:
        assert s.cipher()[0] == "ECDHE_SM4_GCM_SM3"
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        assert s.makefile("rb").read().endswith(BODY)
    with pytest.raises(OSError):  # the server requires client certificates
        shangmi.tlcp.connect("127.0.0.1", port, ca=ca, server_name="localhost", timeout=10)
