"""The SM4 stream file format (``sm4_stream_encrypt``/``sm4_stream_decrypt``): what
``shangmi sm4 encrypt --mode gcm|ccm`` wrote before the format moved into shangmi-sm4-modes
reads back here, round trips at chunk boundaries, and changes are refused."""

import pytest

import shangmi

KEY = bytes(range(16))
MESSAGE = b"SM4 stream written by the CLI before the library"
# `printf '...' | shangmi sm4 encrypt --mode gcm|ccm --key 000102...0f` (the CLI at 1e421b2)
CLI = {
    "gcm": "534d345354524d0101109fed385e007acfa6ab4ea66c948acff6e753ed65a7941aa8ce80e1ece1b5"
    "9301aadbfaaec10006f9ed6ac9d3474db3040c9311f80be8906c30f1ea4dcae66754b4d749c0225cbd"
    "0706a50fe8da55c6acf544a5f8894e1a",
    "ccm": "534d345354524d010210ca7f3c1e8eaa86a3ec03c0c11a1f4028be924ee534c254675b7149a27425"
    "0743a049ab2bff4bee49a041a72802eaceef1ebef3ec6f6210823dfe0fbc773387564cb23a75d505c9"
    "b27d631631e6aa72b04bd0addefdf87d",
}
CHUNK = 1 << 16


@pytest.mark.parametrize("mode", ["gcm", "ccm"])
def test_reads_what_the_cli_wrote(mode):
    assert shangmi.sm4_stream_decrypt(KEY, bytes.fromhex(CLI[mode])) == MESSAGE


@pytest.mark.parametrize("mode", ["gcm", "ccm"])
@pytest.mark.parametrize("length", [0, 1, CHUNK, CHUNK + 1])
def test_round_trip(mode, length):
    data = bytes(i * 7 % 256 for i in range(length))
    sealed = shangmi.sm4_stream_encrypt(KEY, data, mode=mode)
    chunks = max(1, -(-length // CHUNK))
    assert len(sealed) == 33 + length + 16 * chunks
    assert sealed[:7] == b"SM4STRM" and sealed[8] == (1 if mode == "gcm" else 2)
    assert shangmi.sm4_stream_decrypt(KEY, sealed) == data
    # a fresh salt every time
    assert shangmi.sm4_stream_encrypt(KEY, data, mode=mode) != sealed


def test_changes_are_refused():
    sealed = shangmi.sm4_stream_encrypt(KEY, bytes(2 * CHUNK + 5))
    for bad in [
        sealed[: 33 + CHUNK + 16],  # cut at a chunk boundary
        sealed[:-1],  # cut inside the last chunk
        sealed[:20] + bytes([sealed[20] ^ 1]) + sealed[21:],  # the salt
        sealed[:-1] + bytes([sealed[-1] ^ 1]),  # the last tag
    ]:
        with pytest.raises(shangmi.InvalidTag):
            shangmi.sm4_stream_decrypt(KEY, bad)
    with pytest.raises(shangmi.InvalidTag):
        shangmi.sm4_stream_decrypt(bytes(16), sealed)
    for bad in [b"", sealed[:33], b"X" + sealed[1:], sealed[:7] + b"\x02" + sealed[8:]]:
        with pytest.raises(ValueError):
            shangmi.sm4_stream_decrypt(KEY, bad)
    with pytest.raises(ValueError):
        shangmi.sm4_stream_encrypt(KEY, b"x", mode="cbc")
    with pytest.raises(shangmi.InvalidKey):
        shangmi.sm4_stream_encrypt(bytes(15), b"x")
