//! The SM4 stream format (`shangmi_sm4_modes::stream`): files written by `shangmi sm4
//! encrypt --mode gcm|ccm` before the format moved into this crate (so the library reads
//! and writes exactly what the command line wrote), round trips at chunk boundaries, and
//! every change to a stream refused.

use hex_literal::hex;
use shangmi_sm3::{Digest, Sm3};
use shangmi_sm4_modes::stream::{
    self, HEADER_LEN, StreamAead, StreamError, StreamHeader, StreamOpener, TAG_LEN,
};

const KEY: [u8; 16] = hex!("000102030405060708090a0b0c0d0e0f");
const CHUNK: usize = 1 << 16;

/// `printf 'SM4 stream written by the CLI before the library' | shangmi sm4 encrypt --mode
/// gcm|ccm --key 000102…0f` (the CLI at 1e421b2), and the empty input with gcm.
const CLI_GCM: &[u8] = &hex!(
    "534d345354524d0101109fed385e007acfa6ab4ea66c948acff6e753ed65a7941aa8ce80e1ece1b59301aadbfaaec10006f9ed6ac9d3474db3040c9311f80be8906c30f1ea4dcae66754b4d749c0225cbd0706a50fe8da55c6acf544a5f8894e1a"
);
const CLI_CCM: &[u8] = &hex!(
    "534d345354524d010210ca7f3c1e8eaa86a3ec03c0c11a1f4028be924ee534c254675b7149a274250743a049ab2bff4bee49a041a72802eaceef1ebef3ec6f6210823dfe0fbc773387564cb23a75d505c9b27d631631e6aa72b04bd0addefdf87d"
);
const CLI_EMPTY: &[u8] = &hex!(
    "534d345354524d01011029c338d449b5171833e944069affb85736ae6a6a6bb48d203055fb3b6889a139545023f1e4d0d8"
);
const MESSAGE: &[u8] = b"SM4 stream written by the CLI before the library";

/// 150,000 bytes (two full chunks and a short one): byte i is (7i + 3) mod 256.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

#[test]
fn reads_what_the_cli_wrote() {
    assert_eq!(stream::decrypt(&KEY, CLI_GCM).unwrap(), MESSAGE);
    assert_eq!(stream::decrypt(&KEY, CLI_CCM).unwrap(), MESSAGE);
    assert_eq!(stream::decrypt(&KEY, CLI_EMPTY).unwrap(), b"");
    assert_eq!(
        StreamHeader::parse(CLI_CCM).unwrap().aead(),
        StreamAead::Ccm
    );
}

#[test]
fn writes_what_the_cli_wrote() {
    // The CLI's output for the 150,000-byte pattern, by its header and SM3 digest
    // (`shangmi sm3sum`): the library under the same header gives the same bytes.
    let cases = [
        (
            hex!("534d345354524d0101102e83bf2d34f147ffa229d17d45247990f9a4da53d35033"),
            hex!("a32516388bb8f28039c4e1817e49323014479a6b1258bfd11da34dc245925159"),
        ),
        (
            hex!("534d345354524d010210649214f9cffbc8f9dca9369f51b61f2a5916d14fec64b5"),
            hex!("02caf4f4b907b15d17ba8c6062755cde4e13215b87aa74fdca8dd535dd1d158e"),
        ),
    ];
    let plain = pattern(150_000);
    for (header, digest) in cases {
        let header = StreamHeader::parse(&header).unwrap();
        let sealed = stream::encrypt(&KEY, header, &plain).unwrap();
        assert_eq!(sealed.len(), 150_081);
        assert_eq!(Sm3::digest(&sealed)[..], digest[..]);
        assert_eq!(stream::decrypt(&KEY, &sealed).unwrap(), plain);
    }
    let header = StreamHeader::parse(CLI_GCM).unwrap();
    assert_eq!(stream::encrypt(&KEY, header, MESSAGE).unwrap(), CLI_GCM);
}

#[test]
fn round_trips_at_chunk_boundaries() {
    for aead in [StreamAead::Gcm, StreamAead::Ccm] {
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK] {
            let plain = pattern(len);
            let header = StreamHeader::new(aead, [len as u8; 23]);
            let sealed = stream::encrypt(&KEY, header, &plain).unwrap();
            let chunks = len.div_ceil(CHUNK).max(1);
            assert_eq!(
                sealed.len(),
                HEADER_LEN + len + chunks * TAG_LEN,
                "{aead:?} {len}"
            );
            assert_eq!(
                stream::decrypt(&KEY, &sealed).unwrap(),
                plain,
                "{aead:?} {len}"
            );
        }
    }
}

#[test]
fn every_change_is_refused() {
    let plain = pattern(2 * CHUNK + 100);
    let sealed =
        stream::encrypt(&KEY, StreamHeader::new(StreamAead::Gcm, [9; 23]), &plain).unwrap();
    let sealed_chunk = CHUNK + TAG_LEN;
    // cut at a chunk boundary: the new last chunk was sealed as not last
    let cut = &sealed[..HEADER_LEN + 2 * sealed_chunk];
    assert_eq!(
        stream::decrypt(&KEY, cut),
        Err(StreamError::Authentication(1))
    );
    // cut inside a chunk
    let cut = &sealed[..sealed.len() - 1];
    assert_eq!(
        stream::decrypt(&KEY, cut),
        Err(StreamError::Authentication(2))
    );
    // chunks swapped
    let mut swapped = sealed.clone();
    let (a, b) = (HEADER_LEN, HEADER_LEN + sealed_chunk);
    let first = sealed[a..b].to_vec();
    swapped.copy_within(b..b + sealed_chunk, a);
    swapped[b..b + sealed_chunk].copy_from_slice(&first);
    assert_eq!(
        stream::decrypt(&KEY, &swapped),
        Err(StreamError::Authentication(0))
    );
    // a header byte (the salt), a ciphertext bit, a tag bit, the key
    for at in [20, HEADER_LEN + 5, sealed.len() - 1] {
        let mut bad = sealed.clone();
        bad[at] ^= 1;
        assert!(
            matches!(
                stream::decrypt(&KEY, &bad),
                Err(StreamError::Authentication(_))
            ),
            "{at}"
        );
    }
    assert_eq!(
        stream::decrypt(&[0; 16], &sealed),
        Err(StreamError::Authentication(0))
    );
    // appended bytes: a tag-only chunk after the last is refused by length
    let mut longer = sealed.clone();
    longer.extend_from_slice(&[0; TAG_LEN]);
    assert!(stream::decrypt(&KEY, &longer).is_err());
    // header fields
    assert_eq!(
        stream::decrypt(&KEY, &sealed[..HEADER_LEN]),
        Err(StreamError::NoChunk)
    );
    assert_eq!(
        stream::decrypt(&KEY, &sealed[..10]),
        Err(StreamError::NotAStream)
    );
    for (at, value, error) in [
        (0, b'X', StreamError::NotAStream),
        (7, 2, StreamError::Version(2)),
        (8, 3, StreamError::UnknownAead(3)),
        (9, 21, StreamError::ChunkSize(21)),
        (9, 9, StreamError::ChunkSize(9)),
    ] {
        let mut bad = sealed.clone();
        bad[at] = value;
        assert_eq!(stream::decrypt(&KEY, &bad), Err(error), "byte {at}");
    }
}

#[test]
fn chunk_lengths_are_checked_in_both_directions() {
    let header = StreamHeader::new(StreamAead::Ccm, [1; 23]);
    let mut sealer = stream::StreamSealer::new(&KEY, header);
    assert_eq!(
        sealer.seal_chunk(&mut [0; 10], false),
        Err(StreamError::ChunkLength(0))
    );
    let mut full = vec![0u8; CHUNK];
    let tag = sealer.seal_chunk(&mut full, false).unwrap();
    // an empty last chunk only as the only chunk
    assert_eq!(
        sealer.seal_chunk(&mut [], true),
        Err(StreamError::ChunkLength(1))
    );
    assert!(sealer.seal_chunk(&mut [5], true).is_ok());
    assert_eq!(sealer.seal_chunk(&mut [5], true), Err(StreamError::TooLong));
    let mut opener = StreamOpener::new(&KEY, header);
    full.extend_from_slice(&tag);
    assert_eq!(
        opener.open_chunk(&mut full[..TAG_LEN - 1], false),
        Err(StreamError::ChunkLength(0))
    );
    assert_eq!(opener.open_chunk(&mut full, false), Ok(CHUNK));
    assert_eq!(full[..CHUNK], [0; CHUNK][..]);
}
