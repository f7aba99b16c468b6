"""A ``requests`` transport adapter that speaks TLCP:

    import requests
    from shangmi.tlcp.requests import TLCPAdapter
    s = requests.Session()
    s.mount("https://gateway.example", TLCPAdapter(ca="ca.pem"))
    print(s.get("https://gateway.example/status").text)

It is requests' own ``HTTPAdapter`` with a urllib3 connection pool whose connections are
``shangmi.tlcp`` sockets: keep-alive, chunked and Content-Length bodies, streaming,
timeouts and retries are urllib3's. Certificates are checked against the adapter's ``ca``
(requests' ``verify`` and ``cert`` arguments do not apply; a ``verify=False`` request is
refused rather than silently checked). Proxies are not supported. Needs ``requests``
(and with it urllib3 2).
"""

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection
from urllib3.connectionpool import HTTPConnectionPool
from urllib3.poolmanager import PoolManager

from . import connect

__all__ = ["TLCPAdapter"]


class _TLCPConnection(HTTPConnection):
    """urllib3's HTTP connection over a TLCP socket instead of a TCP one."""

    default_port = 443
    _tlcp_options = {}

    def _new_conn(self):
        t = self.timeout
        timeout = t if isinstance(t, (int, float)) and not isinstance(t, bool) else None
        return connect(self._dns_host, self.port, timeout=timeout, **self._tlcp_options)


class _TLCPPool(HTTPConnectionPool):
    scheme = "https"
    default_port = 443


class TLCPAdapter(HTTPAdapter):
    """``TLCPAdapter(ca, *, sign_cert=None, sign_key=None, enc_cert=None, enc_key=None,
    key_password=None, suites=None, server_name=None, crls=None, name_check="san",
    gmssl_compat=False, **HTTPAdapter_kwargs)``: the arguments of
    ``shangmi.tlcp.connect`` for every connection this adapter opens."""

    __attrs__ = HTTPAdapter.__attrs__ + ["_tlcp"]

    def __init__(self, ca, *, sign_cert=None, sign_key=None, enc_cert=None, enc_key=None,
                 key_password=None, suites=None, server_name=None, crls=None,
                 name_check="san", gmssl_compat=False, **kwargs):
        if ca is None:
            raise ValueError("ca is required")
        self._tlcp = dict(ca=ca, sign_cert=sign_cert, sign_key=sign_key, enc_cert=enc_cert,
                          enc_key=enc_key, key_password=key_password, suites=suites,
                          server_name=server_name, crls=crls, name_check=name_check,
                          gmssl_compat=gmssl_compat)
        super().__init__(**kwargs)

    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):
        self._pool_connections = connections
        self._pool_maxsize = maxsize
        self._pool_block = block
        self.poolmanager = PoolManager(num_pools=connections, maxsize=maxsize, block=block,
                                       **pool_kwargs)
        conn = type("TLCPConnection", (_TLCPConnection,), {"_tlcp_options": self._tlcp})
        pool = type("TLCPConnectionPool", (_TLCPPool,), {"ConnectionCls": conn})
        self.poolmanager.pool_classes_by_scheme = {"http": HTTPConnectionPool, "https": pool}

    def _pool(self, url, proxies):
        if proxies and requests.utils.select_proxy(url, proxies):
            raise requests.exceptions.InvalidProxyURL("TLCPAdapter does not support proxies")
        if not url.lower().startswith("https://"):
            raise requests.exceptions.InvalidURL("TLCPAdapter serves https:// URLs only")
        return self.poolmanager.connection_from_url(url)

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
        if verify is False:
            raise ValueError("TLCPAdapter always verifies the server (against its ca)")
        return self._pool(request.url, proxies)

    def get_connection(self, url, proxies=None):
        return self._pool(url, proxies)

    def cert_verify(self, conn, url, verify, cert):
        """Nothing to set: the TLCP connection checks the server against the adapter's ca."""
