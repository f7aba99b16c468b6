"""``gmssl.sm4``: ``CryptSM4(mode, padding_mode)``, ``set_key(key, mode)``,
``crypt_ecb(data)``, ``crypt_cbc(iv, data)``, with gmssl's paddings."""

from ... import _shangmi
from . import _args

__all__ = ["SM4_ENCRYPT", "SM4_DECRYPT", "PKCS7", "ZERO", "CryptSM4"]

SM4_ENCRYPT = 0
SM4_DECRYPT = 1
PKCS7 = 0
ZERO = 1


def _pad_pkcs7(data):
    n = 16 - len(data) % 16
    return data + bytes([n]) * n


def _unpad_pkcs7(data):
    if not data:
        raise ValueError("SM4: empty decryption output")
    n = data[-1]
    # gmssl removes data[-1] bytes without checking them; a wrong key or corrupted data
    # is reported here instead of returning garbage.
    if n < 1 or n > 16 or n > len(data) or data[-n:] != bytes([n]) * n:
        raise ValueError("SM4: invalid PKCS#7 padding")
    return data[:-n]


class CryptSM4(object):
    def __init__(self, mode=SM4_ENCRYPT, padding_mode=PKCS7):
        self.mode = mode
        self.padding_mode = padding_mode
        self._key = None

    def set_key(self, key, mode):
        key = _args.byte_values(key, "key")
        if len(key) != 16:
            raise ValueError("SM4 key must be 16 bytes")
        if mode not in (SM4_ENCRYPT, SM4_DECRYPT):
            raise ValueError("mode must be SM4_ENCRYPT or SM4_DECRYPT")
        self._key = key
        self._ecb = _shangmi.SM4ECB(self._key, padding=False)
        self._cbc = _shangmi.SM4CBC(self._key, padding=False)
        self.mode = mode

    def _ready(self):
        if self._key is None:
            raise ValueError("call set_key first")

    def crypt_ecb(self, input_data):
        data = _args.byte_values(input_data, "input_data")
        self._ready()
        if self.mode == SM4_ENCRYPT:
            if self.padding_mode == PKCS7:
                data = _pad_pkcs7(data)
            elif self.padding_mode == ZERO:
                data = data + bytes(16 - len(data) % 16)
            return self._ecb.encrypt(data)
        out = self._ecb.decrypt(data)
        if self.padding_mode == PKCS7:
            return _unpad_pkcs7(out)
        if self.padding_mode == ZERO:
            return out[:-1] if out[-1:] == b"\x00" else out
        return out

    def crypt_cbc(self, iv, input_data):
        iv = _args.byte_values(iv, "iv")
        data = _args.byte_values(input_data, "input_data")
        self._ready()
        if len(iv) != 16:
            raise ValueError("SM4-CBC IV must be 16 bytes")
        if self.mode == SM4_ENCRYPT:
            return self._cbc.encrypt(iv, _pad_pkcs7(data))
        return _unpad_pkcs7(self._cbc.decrypt(iv, data))
