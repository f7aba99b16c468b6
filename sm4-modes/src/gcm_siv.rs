//! SM4-GCM-SIV: RFC 8452's nonce-misuse-resistant AEAD with SM4 as the block cipher.
//!
//! Per nonce, the key-generating key derives a POLYVAL key and a 128-bit encryption key
//! (RFC 8452 §4, the 128-bit key case); the tag is the encryption of POLYVAL(AAD, text,
//! lengths) with the nonce folded in, and the text is encrypted in counter mode from the
//! tag (32-bit little-endian counter in the first word). Sealing reads the text twice
//! (hash, then encrypt: the tag is the counter); opening decrypts and hashes each chunk in
//! one pass. The construction is generic over the block cipher, so the tests run it with
//! AES-128 against RFC 8452's own vectors.

use aead::{
    Error,
    consts::{U12, U16},
    inout::InOutBuf,
};
use cipher::{Block, BlockCipherEncrypt, BlockSizeUser};
use shangmi_dispatch::Available;
use shangmi_sm4::Sm4;

use crate::ghash::{GhashBackend, Hasher, PolyvalKey};
use crate::sm4_aead::{GcmSiv, Mode, Sm4Aead};

/// RFC 8452 §6: plaintext and associated data at most 2^36 bytes.
const MAX_LEN: u64 = 1 << 36;
/// Blocks per counter-mode engine call (the widest engine's step).
const CHUNK_BLOCKS: usize = 64;

/// SM4-GCM-SIV (RFC 8452 with SM4): a 16-byte key-generating key, 12-byte nonce and
/// 16-byte tag. Repeating a nonce reveals only whether two messages (with their associated
/// data) were equal, where GCM would lose confidentiality and authenticity.
///
/// ```
/// use shangmi_sm4_modes::Sm4GcmSiv;
/// use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
///
/// let siv = Sm4GcmSiv::new(&[7u8; 16].into());
/// let nonce = [1u8; 12].into();
/// let mut buf = *b"attack at dawn";
/// let tag = siv.encrypt_inout_detached(&nonce, b"header", (&mut buf[..]).into()).unwrap();
/// assert_ne!(&buf, b"attack at dawn");
/// siv.decrypt_inout_detached(&nonce, b"header", (&mut buf[..]).into(), &tag).unwrap();
/// assert_eq!(&buf, b"attack at dawn");
/// ```
pub type Sm4GcmSiv = Sm4Aead<GcmSiv, U12, U16>;

impl Mode<U12, U16> for GcmSiv {
    type Key = Available<GhashBackend>;
    const NAME: &'static str = "Sm4GcmSiv";

    fn key(_: &Sm4, polyval: Available<GhashBackend>) -> Available<GhashBackend> {
        polyval
    }

    fn seal(
        cipher: &Sm4,
        polyval: &Available<GhashBackend>,
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<[u8; 16]> {
        sm4_kgk(cipher, polyval).seal(nonce, aad, buf)
    }

    fn open(
        cipher: &Sm4,
        polyval: &Available<GhashBackend>,
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> aead::Result<()> {
        sm4_kgk(cipher, polyval).open(nonce, aad, buf, tag)
    }
}

/// SM4 as the key-generating key, the derived keys' SM4 on its engine.
fn sm4_kgk<'a>(
    cipher: &'a Sm4,
    polyval: &Available<GhashBackend>,
) -> Kgk<'a, Sm4, impl FnOnce(&[u8; 16]) -> Sm4 + 'a> {
    Kgk {
        kgk: cipher,
        new_cipher: |k: &[u8; 16]| sm4_like(cipher, k),
        polyval: *polyval,
    }
}

/// SM4 with `key` on the engine `like` runs on.
fn sm4_like(like: &Sm4, key: &[u8; 16]) -> Sm4 {
    // The engine runs here (`like` runs on it); `Sm4::new` is the unreachable fallback.
    Sm4::with_backend(&(*key).into(), like.backend())
        .unwrap_or_else(|_| cipher::KeyInit::new(&(*key).into()))
}

/// RFC 8452 §4: the message-authentication key and the 128-bit message-encryption key,
/// the first halves of E(K, LE32(i) ‖ nonce) for i = 0..4.
fn derive_keys<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>>(
    kgk: &C,
    nonce: &[u8],
) -> ([u8; 16], [u8; 16]) {
    let mut blocks = [Block::<C>::default(); 4];
    for (i, b) in blocks.iter_mut().enumerate() {
        b[..4].copy_from_slice(&(i as u32).to_le_bytes());
        b[4..].copy_from_slice(nonce);
    }
    kgk.encrypt_blocks(&mut blocks);
    let mut auth = [0u8; 16];
    let mut enc = [0u8; 16];
    auth[..8].copy_from_slice(&blocks[0][..8]);
    auth[8..].copy_from_slice(&blocks[1][..8]);
    enc[..8].copy_from_slice(&blocks[2][..8]);
    enc[8..].copy_from_slice(&blocks[3][..8]);
    (auth, enc)
}

/// The tag from the POLYVAL state `h` after the padded AAD and text: E(enc, the hash of
/// the lengths added, the nonce folded in, the top bit cleared) (RFC 8452 §4).
fn finish_tag<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>>(
    enc: &C,
    mut h: Hasher<'_, false>,
    nonce: &[u8],
    aad_len: usize,
    text_len: usize,
) -> [u8; 16] {
    let mut len = [0u8; 16];
    len[..8].copy_from_slice(&(aad_len as u64 * 8).to_le_bytes());
    len[8..].copy_from_slice(&(text_len as u64 * 8).to_le_bytes());
    h.update_blocks(&len);
    let mut s = h.finalize();
    for (s, n) in s.iter_mut().zip(nonce) {
        *s ^= n;
    }
    s[15] &= 0x7f;
    let mut t = Block::<C>::from(s);
    enc.encrypt_block(&mut t);
    t.into()
}

/// Counter mode from `tag` with its top bit set, counting in the first 32 bits
/// (little-endian, mod 2^32), [`CHUNK_BLOCKS`] per engine call; `each` sees every chunk
/// after it is XORed.
fn ctr<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>>(
    enc: &C,
    tag: &[u8; 16],
    data: &mut [u8],
    mut each: impl FnMut(&[u8]),
) {
    let mut counter = *tag;
    counter[15] |= 0x80;
    let mut n = u32::from_le_bytes([counter[0], counter[1], counter[2], counter[3]]);
    let mut ks = [Block::<C>::default(); CHUNK_BLOCKS];
    for chunk in data.chunks_mut(16 * CHUNK_BLOCKS) {
        let blocks = chunk.len().div_ceil(16);
        let ks = &mut ks[..crate::gcm::pass_blocks(blocks)];
        for b in ks.iter_mut() {
            counter[..4].copy_from_slice(&n.to_le_bytes());
            *b = counter.into();
            n = n.wrapping_add(1);
        }
        enc.encrypt_blocks(ks);
        crate::gcm::xor_keystream(chunk, ks);
        each(chunk);
    }
}

/// A key-generating key `kgk` and what each message's keys are made with: `new_cipher`
/// makes the block cipher of a derived key, `polyval` is the POLYVAL engine. Generic over
/// the block cipher so the tests run it with AES-128 against RFC 8452.
pub(crate) struct Kgk<'a, C, F> {
    kgk: &'a C,
    new_cipher: F,
    polyval: Available<GhashBackend>,
}

impl<C, F> Kgk<'_, C, F>
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
    F: FnOnce(&[u8; 16]) -> C,
{
    /// Checks the lengths (RFC 8452 §6) and derives the message's POLYVAL key (with as
    /// many powers as a message of `aad` and `text` bytes uses: short messages skip the rest
    /// of the key setup) and its encryption cipher (`new_cipher` of the derived key).
    fn setup(self, nonce: &[u8], aad: &[u8], text: usize) -> aead::Result<(PolyvalKey, C)> {
        if nonce.len() != 12 || text as u64 > MAX_LEN || aad.len() as u64 > MAX_LEN {
            return Err(Error);
        }
        let (auth, enc) = derive_keys(self.kgk, nonce);
        let blocks = aad.len().div_ceil(16) + text.div_ceil(16) + 1;
        Ok((
            PolyvalKey::with_powers(&auth, self.polyval, blocks),
            (self.new_cipher)(&enc),
        ))
    }

    /// Seals `buf`: returns the tag.
    pub(crate) fn seal(
        self,
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<[u8; 16]> {
        let (key, enc) = self.setup(nonce, aad, buf.len())?;
        let mut h = key.start();
        h.update_padded(aad);
        h.update_padded(buf.get_in());
        let t = finish_tag(&enc, h, nonce, aad.len(), buf.len());
        let out = buf.into_out_with_copied_in();
        ctr(&enc, &t, out, |_| {});
        Ok(t)
    }

    /// Opens `buf` against the tag `expected` (see [`Kgk::seal`]): decrypts and hashes
    /// chunk by chunk; on a wrong tag the output holds the ciphertext again.
    pub(crate) fn open(
        self,
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        expected: &[u8],
    ) -> aead::Result<()> {
        let (key, enc) = self.setup(nonce, aad, buf.len())?;
        let mut t = [0u8; 16];
        t.copy_from_slice(expected.get(..16).ok_or(Error)?);
        let text_len = buf.len();
        let out = buf.into_out_with_copied_in();
        let mut h = key.start();
        h.update_padded(aad);
        // Whole chunks are whole blocks: only the last can leave a partial block to pad.
        ctr(&enc, &t, out, |chunk| h.update_padded(chunk));
        let got = finish_tag(&enc, h, nonce, aad.len(), text_len);
        if crate::ct::eq(&got, &t) {
            return Ok(());
        }
        ctr(&enc, &t, out, |_| {});
        Err(Error)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use aes::Aes128;
    use cipher::KeyInit;

    /// RFC 8452 Appendix C.1 (AEAD_AES_128_GCM_SIV), all 24 vectors: key, nonce, AAD,
    /// plaintext, ciphertext ‖ tag. The construction here is the one SM4-GCM-SIV runs, with
    /// AES-128 as the block cipher.
    const RFC8452_C1: [(&str, &str, &str, &str, &str); 24] = [
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "",
            "",
            "dc20e2d83f25705bb49e439eca56de25",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "",
            "0100000000000000",
            "b5d839330ac7b786578782fff6013b815b287c22493a364c",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "",
            "010000000000000000000000",
            "7323ea61d05932260047d942a4978db357391a0bc4fdec8b0d106639",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "",
            "01000000000000000000000000000000",
            "743f7c8077ab25f8624e2e948579cf77303aaf90f6fe21199c6068577437a0c4",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "",
            "0100000000000000000000000000000002000000000000000000000000000000",
            "84e07e62ba83a6585417245d7ec413a9fe427d6315c09b57ce45f2e3936a94451a8e45dcd4578c667cd86847bf6155ff",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "",
            "010000000000000000000000000000000200000000000000000000000000000003000000000000000000000000000000",
            "3fd24ce1f5a67b75bf2351f181a475c7b800a5b4d3dcf70106b1eea82fa1d64df42bf7226122fa92e17a40eeaac1201b5e6e311dbf395d35b0fe39c2714388f8",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "",
            "01000000000000000000000000000000020000000000000000000000000000000300000000000000000000000000000004000000000000000000000000000000",
            "2433668f1058190f6d43e360f4f35cd8e475127cfca7028ea8ab5c20f7ab2af02516a2bdcbc08d521be37ff28c152bba36697f25b4cd169c6590d1dd39566d3f8a263dd317aa88d56bdf3936dba75bb8",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "01",
            "0200000000000000",
            "1e6daba35669f4273b0a1a2560969cdf790d99759abd1508",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "01",
            "020000000000000000000000",
            "296c7889fd99f41917f4462008299c5102745aaa3a0c469fad9e075a",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "01",
            "02000000000000000000000000000000",
            "e2b0c5da79a901c1745f700525cb335b8f8936ec039e4e4bb97ebd8c4457441f",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "01",
            "0200000000000000000000000000000003000000000000000000000000000000",
            "620048ef3c1e73e57e02bb8562c416a319e73e4caac8e96a1ecb2933145a1d71e6af6a7f87287da059a71684ed3498e1",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "01",
            "020000000000000000000000000000000300000000000000000000000000000004000000000000000000000000000000",
            "50c8303ea93925d64090d07bd109dfd9515a5a33431019c17d93465999a8b0053201d723120a8562b838cdff25bf9d1e6a8cc3865f76897c2e4b245cf31c51f2",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "01",
            "02000000000000000000000000000000030000000000000000000000000000000400000000000000000000000000000005000000000000000000000000000000",
            "2f5c64059db55ee0fb847ed513003746aca4e61c711b5de2e7a77ffd02da42feec601910d3467bb8b36ebbaebce5fba30d36c95f48a3e7980f0e7ac299332a80cdc46ae475563de037001ef84ae21744",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "010000000000000000000000",
            "02000000",
            "a8fe3e8707eb1f84fb28f8cb73de8e99e2f48a14",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "010000000000000000000000000000000200",
            "0300000000000000000000000000000004000000",
            "6bb0fecf5ded9b77f902c7d5da236a4391dd029724afc9805e976f451e6d87f6fe106514",
        ),
        (
            "01000000000000000000000000000000",
            "030000000000000000000000",
            "0100000000000000000000000000000002000000",
            "030000000000000000000000000000000400",
            "44d0aaf6fb2f1f34add5e8064e83e12a2adabff9b2ef00fb47920cc72a0c0f13b9fd",
        ),
        (
            "e66021d5eb8e4f4066d4adb9c33560e4",
            "f46e44bb3da0015c94f70887",
            "",
            "",
            "a4194b79071b01a87d65f706e3949578",
        ),
        (
            "36864200e0eaf5284d884a0e77d31646",
            "bae8e37fc83441b16034566b",
            "46bb91c3c5",
            "7a806c",
            "af60eb711bd85bc1e4d3e0a462e074eea428a8",
        ),
        (
            "aedb64a6c590bc84d1a5e269e4b47801",
            "afc0577e34699b9e671fdd4f",
            "fc880c94a95198874296",
            "bdc66f146545",
            "bb93a3e34d3cd6a9c45545cfc11f03ad743dba20f966",
        ),
        (
            "d5cc1fd161320b6920ce07787f86743b",
            "275d1ab32f6d1f0434d8848c",
            "046787f3ea22c127aaf195d1894728",
            "1177441f195495860f",
            "4f37281f7ad12949d01d02fd0cd174c84fc5dae2f60f52fd2b",
        ),
        (
            "b3fed1473c528b8426a582995929a149",
            "9e9ad8780c8d63d0ab4149c0",
            "c9882e5386fd9f92ec489c8fde2be2cf97e74e93",
            "9f572c614b4745914474e7c7",
            "f54673c5ddf710c745641c8bc1dc2f871fb7561da1286e655e24b7b0",
        ),
        (
            "2d4ed87da44102952ef94b02b805249b",
            "ac80e6f61455bfac8308a2d4",
            "2950a70d5a1db2316fd568378da107b52b0da55210cc1c1b0a",
            "0d8c8451178082355c9e940fea2f58",
            "c9ff545e07b88a015f05b274540aa183b3449b9f39552de99dc214a1190b0b",
        ),
        (
            "bde3b2f204d1e9f8b06bc47f9745b3d1",
            "ae06556fb6aa7890bebc18fe",
            "1860f762ebfbd08284e421702de0de18baa9c9596291b08466f37de21c7f",
            "6b3db4da3d57aa94842b9803a96e07fb6de7",
            "6298b296e24e8cc35dce0bed484b7f30d5803e377094f04709f64d7b985310a4db84",
        ),
        (
            "f901cfe8a69615a93fdf7a98cad48179",
            "6245709fb18853f68d833640",
            "7576f7028ec6eb5ea7e298342a94d4b202b370ef9768ec6561c4fe6b7e7296fa859c21",
            "e42a3c02c25b64869e146d7b233987bddfc240871d",
            "391cc328d484a4f46406181bcd62efd9b3ee197d052d15506c84a9edd65e13e9d24a2a6e70",
        ),
    ];

    #[test]
    fn rfc8452_c1_aes128_on_every_polyval_engine() {
        for (k, n, a, p, want) in RFC8452_C1 {
            let [k, n, a, p, want] = [k, n, a, p, want].map(|h| hex::decode(h).unwrap());
            let kgk = Aes128::new_from_slice(&k).unwrap();
            let aes = |key: &[u8; 16]| Aes128::new(&(*key).into());
            for e in Available::<GhashBackend>::all() {
                let mut buf = p.clone();
                let kgk = || Kgk {
                    kgk: &kgk,
                    new_cipher: aes,
                    polyval: e,
                };
                let t = kgk().seal(&n, &a, (&mut buf[..]).into()).unwrap();
                assert_eq!([&buf[..], &t[..]].concat(), want, "{e}");
                // A flipped tag bit is refused and the ciphertext comes back.
                let mut bad = t;
                bad[0] ^= 1;
                assert!(kgk().open(&n, &a, (&mut buf[..]).into(), &bad).is_err());
                assert_eq!(buf, want[..p.len()], "{e}");
                kgk().open(&n, &a, (&mut buf[..]).into(), &t).unwrap();
                assert_eq!(buf, p, "{e}");
            }
        }
    }
}
